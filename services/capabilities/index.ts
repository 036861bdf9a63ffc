/**
 * The capability registry: every capability module of this build, one line each
 * (docs/extending.md). The gateway registers their routes and in-flight limits, the
 * workers their backends, billing their units, POST /v1/warmup their names and
 * GET /v1/models their models from here; nothing else lists the capabilities.
 */
import type { RequestSchema, RequestsSchema, ResultSchema, ResultsSchema } from '../events/codec.ts';
import type { UsageBillingUnit, UsageCapability } from '../events/contract.ts';
import type { CapabilityModule, ModuleModel } from './types.ts';
import decide from './decide/index.ts';
import extract from './extract/index.ts';
import languageId from './language-id/index.ts';
import diacritize from './diacritize/index.ts';
import questions from './questions/index.ts';

/** The capability modules, in the order of the spec's "What the service does". */
export const CAPABILITY_MODULES = [decide, extract, languageId, diacritize, questions] as const;

/** A capability's name: one request topic, one kind of worker. */
export type Capability = (typeof CAPABILITY_MODULES)[number]['name'];

/** Every capability name. */
export const CAPABILITIES: readonly Capability[] = CAPABILITY_MODULES.map((m) => m.name);

const BY_NAME = new Map<string, CapabilityModule<Capability>>(CAPABILITY_MODULES.map((m) => [m.name, m]));

/** Whether a string names a capability of this build. */
export const isCapability = (name: string): name is Capability => BY_NAME.has(name);

/**
 * The module of a capability.
 * @throws Error for a name that is not a capability (a programming error: names come from the registry)
 */
export function capabilityModule(c: Capability): CapabilityModule<Capability> {
  const m = BY_NAME.get(c);
  if (!m) throw new Error(`"${c}" is not a capability of this build (${CAPABILITIES.join(', ')})`);
  return m;
}

/** Billing unit of a capability (spec table "Billed per"). */
export type BillingUnit = UsageBillingUnit;
export const billingUnitOf = (c: Capability): BillingUnit => capabilityModule(c).billingUnit;

/** The `capability` (Avro enum symbol) and `unit` fields of a capability's usage events (schemas/common/usage.avsc). */
export function usageFieldsOf(c: Capability): { capability: UsageCapability; unit: UsageBillingUnit } {
  const m = capabilityModule(c);
  return { capability: m.avroSymbol, unit: m.billingUnit };
}

/**
 * The capability whose usage events carry an Avro `Capability` symbol (the inverse of
 * {@link usageFieldsOf}); the symbol itself for one this build does not know (usage
 * written by a newer build stays reportable).
 */
export function capabilityOfSymbol(symbol: string): string {
  return CAPABILITY_MODULES.find((m) => m.avroSymbol === symbol)?.name ?? symbol;
}

/** Model names of a capability. */
export const modelsOf = (c: Capability): string[] => capabilityModule(c).models.map((m) => m.name);

/** Default model of a capability (spec). */
export const defaultModelOf = (c: Capability): string => capabilityModule(c).defaultModel;

/** Schema of a capability's request events (`schemas/<name>/request.avsc`). */
export const requestSchemaOf = (c: Capability): RequestSchema => `${c}/request` as RequestSchema;
/** Schema of a capability's result events (`schemas/<name>/result.avsc`). */
export const resultSchemaOf = (c: Capability): ResultSchema => `${c}/result` as ResultSchema;
/** Schema of the capability's several-item request events (one request's items in one event). */
export const requestsSchemaOf = (c: Capability): RequestsSchema => `${c}/requests` as RequestsSchema;
/** Schema of the capability's result events answering several items of one request event. */
export const resultsSchemaOf = (c: Capability): ResultsSchema => `${c}/results` as ResultsSchema;

/**
 * Usage quantity of a successful item in its capability's billing unit, from the item's
 * result output (characters for diacritization, answered questions for decisions, else 1).
 */
export const usageQuantity = (c: Capability, output: Record<string, unknown>): number => capabilityModule(c).usageQuantity(output);

/** A model of the catalogue: a module's model with its capability and route. */
export interface CatalogModel extends ModuleModel { capability: Capability; endpoint: string; }

/** Every model of the spec's models table, capability by capability. */
export const MODEL_CATALOG: readonly CatalogModel[] = CAPABILITY_MODULES.flatMap((m) =>
  m.models.map((model) => ({ ...model, capability: m.name, endpoint: m.endpoint })));

/** A backend: the capability whose requests it answers and its engine module (exports `createEngine`). */
export interface Backend { capability: Capability; module: URL; }

/**
 * Every backend of this build, by name (the `backend` of a model's config.json).
 * @throws Error at import when two modules declare one backend name
 */
export const BACKENDS: Readonly<Record<string, Backend>> = (() => {
  const out: Record<string, Backend> = {};
  for (const m of CAPABILITY_MODULES) {
    for (const [name, module] of Object.entries(m.backends)) {
      if (out[name]) throw new Error(`backend "${name}" is declared by both ${out[name].capability} and ${m.name}`);
      out[name] = { capability: m.name, module };
    }
  }
  return out;
})();
