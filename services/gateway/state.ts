/**
 * What a gateway knows about its own load, for `/ready`, `/v1/usage`, the health port and
 * shutdown (made by the app factory, services/gateway/app.ts).
 */
import type { BodyBudget } from './body-budget.ts';
import type { InflightItems } from './load-shedding.ts';
import type { UsageRecorder } from './usage-recorder.ts';
import type { OutcomeRecorder } from './outcome-recorder.ts';

/** See the module comment. */
export interface GatewayState {
  /** true once shutdown began: `/ready` answers 503 and new model requests are refused */
  draining: boolean;
  inflight: InflightItems;
  bodies: BodyBudget;
  recorder: UsageRecorder;
  /** outcome events of answered model requests, for analytics (issue 16) */
  outcomes: OutcomeRecorder;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the gateway's own state (see {@link GatewayState}) */
    gatewayState: GatewayState;
  }
}
