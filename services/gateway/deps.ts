/**
 * What route plugins get from the app factory.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { EventCodec } from '../events/codec.ts';
import type { Topics } from '../events/topics.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { KeyIdentity } from '../keys/store.ts';
import type { Producer } from '../transport/types.ts';
import type { Dispatcher, DispatchContext } from './dispatcher.ts';
import type { WorkerRegistry } from './worker-registry.ts';

/** Services the routes use. */
export interface RouteDeps {
  config: Config;
  codec: EventCodec;
  topics: Topics;
  producer: Producer;
  dispatcher: Dispatcher;
  registry: WorkerRegistry;
  /** usage report source for GET /v1/usage; absent when billing runs elsewhere without a shared ledger */
  ledger?: Ledger;
  /** package version for /health */
  version: string;
  /** transport name for /health */
  transport: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the verified API key of the request (routes with `config.auth`) */
    apiKey?: KeyIdentity;
  }
  interface FastifyContextConfig {
    /** route needs `Authorization: Bearer <key>` */
    auth?: boolean;
  }
}

/** Dispatch context of a request: its id, key and deadline. */
export function contextOf(req: FastifyRequest, config: Config): DispatchContext {
  return { requestId: req.id, keyId: req.apiKey?.id ?? 'anonymous', deadline: Date.now() + config.REQUEST_TIMEOUT_MS, log: req.log };
}
