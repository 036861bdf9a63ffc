/**
 * What a capability module declares (docs/extending.md). A module is one folder under
 * services/capabilities/ with an `index.ts` whose default export is a
 * {@link CapabilityModule}; services/capabilities/index.ts lists the modules. The
 * module's `index.ts` holds data only and loads its routes lazily, so the registry can
 * be imported anywhere (gateway, workers, billing) without import cycles.
 */
import type { UsageBillingUnit, UsageCapability } from '../events/contract.ts';
import type { CapabilityRoutes } from '../route-kit/types.ts';

/** A model of the spec's models table, as its capability module lists it. */
export interface ModuleModel {
  /** model name (the `model` field of requests; the folder under models/) */
  name: string;
  /** ISO 639-3 codes; `mul` = many (GET /v1/lid/models gives the count) */
  languages: readonly string[];
  /** one line for GET /v1/models */
  description: string;
}

/** A capability: its routes, wire schemas, billing and models. */
export interface CapabilityModule<N extends string = string> {
  /** name: the request topic `<prefix>.<name>.requests`, the schema folder `schemas/<name>/` (request.avsc, result.avsc), MAX_INFLIGHT_ITEMS keys, POST /v1/warmup service names */
  name: N;
  /** symbol of the capability in the Avro enum of schemas/common/usage.avsc (Avro names allow no '-') */
  avroSymbol: UsageCapability;
  /** billing unit (spec table "Billed per") */
  billingUnit: UsageBillingUnit;
  /** the route that serves its models (GET /v1/models `endpoint`) */
  endpoint: string;
  /** its models from the spec's models table; the first is not necessarily the default */
  models: readonly ModuleModel[];
  /** the model a request without `model` gets (spec) */
  defaultModel: string;
  /**
   * Usage quantity of one successful item in `billingUnit`, from the item's result
   * output (a record of its `<name>/result` schema).
   */
  usageQuantity(output: Record<string, unknown>): number;
  /** default items in flight per gateway before 503 OVERLOADED (MAX_INFLIGHT_ITEMS overrides) */
  maxInflightItems: number;
  /**
   * queue wait tolerated, ms (QUEUE_TARGET_MS overrides): while items wait longer, a
   * gateway admits fewer of them (services/gateway/load-shedding.ts)
   */
  queueTargetMs: number;
  /**
   * its route plugins (current and legacy), loaded when the gateway is built; the gateway
   * registers each with the module's RouteKit as its options (services/route-kit/types.ts)
   */
  routes(): Promise<readonly CapabilityRoutes[]>;
  /**
   * Its backends by name (the `backend` of a model's config.json): engine modules that
   * export `createEngine` (services/workers/engines/types.ts) and run in inference threads.
   */
  backends: Readonly<Record<string, URL>>;
  /**
   * Small request items (records of `schemas/<name>/request.avsc`) a worker runs once after
   * it preloads a model (MODEL_PRELOAD), so that the first real request finds the model's
   * code paths compiled and its buffers allocated. Absent: none (the generative
   * capabilities: one generation on real weights costs seconds).
   */
  warmupItems?(model: string): readonly unknown[];
}

/** Declares a capability module, keeping its name as a literal type. */
export function defineCapability<const N extends string>(m: CapabilityModule<N>): CapabilityModule<N> {
  return m;
}

/**
 * URL of an engine module next to a module's `index.ts`: `.ts` when running from source
 * (tsx), `.js` in a compiled build.
 * @param base the module's `import.meta.url`
 * @param path relative path without extension, e.g. `./backends/lid-embedding-bag`
 */
export function engineModule(base: string, path: string): URL {
  return new URL(`${path}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}
