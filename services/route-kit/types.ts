/**
 * What the gateway hands a capability module's route plugins: the one interface between
 * `services/capabilities/` and `services/gateway/` (docs/extending.md). A route plugin is
 * a Fastify plugin whose options are a {@link RouteKit}; it never imports the gateway,
 * and the gateway reaches a capability only through its module (services/capabilities/
 * types.ts). The static parts that both sides share (body and field limits, field
 * rules, error schemas, result helpers) are this folder's other files.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RequestSchema } from '../events/codec.ts';
import type { ItemResult, SchemaValues } from '../events/contract.ts';

/**
 * What a model route tells the gateway's admission about a request (the gateway's
 * `preHandler`, cheapest check first: these rules, the key's budget, model availability,
 * in-flight load; docs/security.md). `body` has passed the route's JSON Schema.
 */
export interface Admission {
  /** the model that serves the request (legacy names mapped) */
  model(body: any): string;
  /**
   * rules beyond the schema (./validation.ts): throws ServiceError (400, 413) to refuse
   * the request; a batch route returns its per-item outcome, handed to the handler as
   * `req.admitted`. They run before model availability is checked, so a request that
   * breaks one gets its 4xx whatever models are installed.
   */
  check?(body: any): unknown;
  /** request items it becomes (events on the request topic); 0: nothing for a model to do */
  items(body: any, checked: any): number;
  /** billable units it asks for, counted by the rate limit; default `items` */
  units?(body: any): number;
}

/** An {@link Admission} with the capability it belongs to, as the route's options carry it. */
export interface CapabilityAdmission extends Admission {
  /** a capability name of the registry (services/capabilities/index.ts), filled in by the kit */
  capability: string;
}

/** Route options of a model route ({@link RouteKit.modelRoute}), spread into `app.post(url, {...})`. */
export interface ModelRouteOptions {
  config: { auth: true; admission: CapabilityAdmission };
  /** bytes (./limits.ts BODY_LIMITS); a larger body is refused with 413 before it is read */
  bodyLimit: number;
}

/** One request record per item, in the capability's `<name>/request` schema (schemas/). */
export type RequestRecord = SchemaValues[RequestSchema];

/** Plugin options of a capability module's route plugins (see the module comment). */
export interface RouteKit {
  /** the module's capability name: its request topic and in-flight limit */
  readonly capability: string;
  /**
   * Route options of a model route of this capability: `Authorization: Bearer <key>`,
   * the body limit, and the admission that runs after the schema and before the handler.
   */
  modelRoute(admission: Admission, bodyLimit: number): ModelRouteOptions;
  /**
   * Writes the items of an admitted request to the capability's request topic and waits
   * for their results; the items that succeed are billed when the answer is delivered.
   * @param req a request of a route made with {@link modelRoute}
   * @param inputs request records, one per item
   * @returns one result per input, in order; an item without a result by the request's
   *   deadline gets a 504 failure
   * @throws ServiceError NO_WORKER or MODEL_NOT_INSTALLED (503) when no live worker serves
   *   the model, CANCELLED when the client went away; Error when the log refuses the write
   */
  dispatch<O>(req: FastifyRequest, model: string, inputs: RequestRecord[]): Promise<Array<ItemResult<O>>>;
  /** aborts when the request's client goes away (for work a route does before dispatching); undefined outside a model route */
  signal(req: FastifyRequest): AbortSignal | undefined;
  /** the capability's models as live workers announce them (GET model lists) */
  readonly models: {
    /** whether a live worker has the model installed */
    canServe(model: string): boolean;
    /** how many languages the model answers with, as its live workers announce it */
    languages(model: string): number;
  };
  /** threads that check and decode extraction images (IMAGE_THREADS) */
  readonly imageThreads: number;
}

/** A capability module's route plugin. */
export type CapabilityRoutes = FastifyPluginAsync<RouteKit>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** route needs `Authorization: Bearer <key>` */
    auth?: boolean;
    /** an authenticated read of the key's own account: not charged to the key's billable budget (./schemas.ts ACCOUNT_READ) */
    accountRead?: boolean;
    /** a model route: what admission checks before the handler */
    admission?: CapabilityAdmission;
  }
  interface FastifyRequest {
    /** what the route's admission `check` returned */
    admitted?: unknown;
  }
}
