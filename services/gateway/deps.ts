/**
 * What the gateway's own route plugins (routes/) get from the app factory, and the
 * request's dispatch context. Capability modules' routes get a RouteKit instead
 * (./capability-kit.ts, services/route-kit/types.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { GatewaySettings } from './options.ts';
import type { GatewayState } from './state.ts';
import type { EventCodec } from '../events/codec.ts';
import type { Topics } from '../events/topics.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { AnalyticsStore } from '../analytics/store.ts';
import type { KeyIdentity } from '../keys/store.ts';
import type { Producer } from '../transport/types.ts';
import type { Dispatcher, DispatchContext } from './dispatcher.ts';
import type { LiveWorkers } from './live-workers.ts';

/** Services the routes use. */
export interface RouteDeps {
  /** the gateway's settings, validated, defaults applied */
  settings: GatewaySettings;
  codec: EventCodec;
  topics: Topics;
  producer: Producer;
  dispatcher: Dispatcher;
  liveWorkers: LiveWorkers;
  /** usage report source for GET /v1/usage; absent when billing runs elsewhere without a shared ledger */
  ledger?: Ledger;
  /** source of GET /v1/analytics; absent: the route answers 503 */
  analytics?: AnalyticsStore;
  /** package version for /health */
  version: string;
  /** transport name for /health */
  transport: string;
  /** the gateway's load and shutdown state */
  state: GatewayState;
  /** models the process is still preloading (MODEL_PRELOAD), for GET /ready */
  loadingModels: () => string[];
  /** billing lag (usage messages not yet in the ledger), for GET /v1/usage; absent when it cannot be measured */
  billingLag?: () => Promise<number>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the verified API key of the request (routes with `config.auth`) */
    apiKey?: KeyIdentity;
    /** the request's dispatch context (routes with `config.admission`; services/gateway/delivery.ts) */
    dispatchContext?: DispatchContext;
    /**
     * the model of a model route's request, taken once its body has passed the route's
     * schema (services/gateway/admission.ts); events never read the raw body
     */
    admittedModel?: string;
  }
}

/**
 * Dispatch context of an admitted request: its server-made id, key, deadline, abort
 * signal and billable items.
 * @throws Error on a route without `config.admission` (a programming error)
 */
export function contextOf(req: FastifyRequest): DispatchContext {
  if (!req.dispatchContext) throw new Error(`route ${req.routeOptions.url} dispatches without config.admission`);
  return req.dispatchContext;
}
