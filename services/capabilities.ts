/**
 * The capabilities of the service and the spec's model catalogue
 * (../shared/spec/api-spec.md, "What the service does" and the models table).
 */

import type { UsageBillingUnit as BillingUnit, UsageCapability as AvroCapability } from './events/contract.ts';

/** A capability: one request topic, one kind of worker. */
export type Capability = 'decide' | 'extract' | 'language-id' | 'diacritize' | 'questions';

export const CAPABILITIES: readonly Capability[] = ['decide', 'extract', 'language-id', 'diacritize', 'questions'];

/** Billing unit of each capability (spec table "Billed per"). */
export type { BillingUnit };
export const BILLING_UNIT: Readonly<Record<Capability, BillingUnit>> = {
  decide: 'decisions', extract: 'documents', 'language-id': 'texts', diacritize: 'characters', questions: 'generations',
};

/** Symbol of the capability in the Avro `Capability` enum (Avro names allow no '-'). */
export const AVRO_CAPABILITY: Readonly<Record<Capability, AvroCapability>> = {
  decide: 'decide', extract: 'extract', 'language-id': 'language_id', diacritize: 'diacritize', questions: 'questions',
};

/** A model of the catalogue. */
export interface CatalogModel {
  name: string;
  capability: Capability;
  /** route that serves it */
  endpoint: string;
  /** ISO 639-3 codes; `mul` = many (see /v1/lid/models for the count) */
  languages: readonly string[];
  description: string;
}

const DECIDE_LANGS = ['eng', 'swh', 'hau', 'yor', 'ibo', 'amh', 'zul', 'kin', 'som'];
const QG_LANGS = ['eng', 'fra', 'por', 'ara', 'swa', 'hau', 'yor', 'ibo', 'amh', 'zul', 'xho', 'som', 'orm', 'tir', 'kin', 'sna', 'afr', 'aka', 'wol', 'lin', 'lug', 'sot', 'tsn', 'nya', 'mlg'];
const DIAC_LANGS = ['yor', 'ibo', 'hau', 'vie', 'pol', 'tur', 'por', 'spa', 'fra', 'ita', 'ara'];

/** Every model of the spec's models table. */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  { name: 'purplemist-flash-1.0', capability: 'decide', endpoint: '/v1/decide', languages: DECIDE_LANGS, description: 'typed decisions with calibrated probabilities' },
  { name: 'mist-extract-1.0', capability: 'extract', endpoint: '/v1/extract', languages: DECIDE_LANGS, description: 'document to JSON, 4B, most accurate' },
  { name: 'mist-extract-flash-1.0', capability: 'extract', endpoint: '/v1/extract', languages: DECIDE_LANGS, description: 'document to JSON, 2B, faster' },
  { name: 'lid-neural-608', capability: 'language-id', endpoint: '/v1/language-id', languages: ['mul'], description: 'language identification, most accurate' },
  { name: 'lid-lite-608', capability: 'language-id', endpoint: '/v1/language-id', languages: ['mul'], description: 'language identification, fastest' },
  { name: 'diacnet-2.0', capability: 'diacritize', endpoint: '/v1/diacritize', languages: DIAC_LANGS, description: 'diacritic restoration, best accuracy, meaning hints (GPU)' },
  { name: 'diacnet-mini-2.0', capability: 'diacritize', endpoint: '/v1/diacritize', languages: DIAC_LANGS, description: 'diacritic restoration, half the size (GPU)' },
  { name: 'diactag-2.0', capability: 'diacritize', endpoint: '/v1/diacritize', languages: DIAC_LANGS, description: 'diacritic restoration, cheapest (CPU), never changes a letter' },
  { name: 'mist-qg-1.5b', capability: 'questions', endpoint: '/v1/questions/generate', languages: QG_LANGS, description: 'search-style question generation' },
];

/** Default model per capability (spec). */
export const DEFAULT_MODEL: Readonly<Record<Capability, string>> = {
  decide: 'purplemist-flash-1.0', extract: 'mist-extract-1.0', 'language-id': 'lid-neural-608', diacritize: 'diacnet-2.0', questions: 'mist-qg-1.5b',
};

/** Model names of a capability. */
export const modelsOf = (c: Capability): string[] => MODEL_CATALOG.filter((m) => m.capability === c).map((m) => m.name);

/** Vendor prefix of the question-generation model name in responses (spec: `<vendor>/mist-qg-1.5b`). */
export const QG_VENDOR = 'lmstream';

/**
 * Usage quantity of a successful item in its capability's billing unit, from the item's
 * result output: characters for diacritization, answered questions for decisions, else 1.
 */
export function usageQuantity(capability: Capability, output: Record<string, unknown>): number {
  switch (capability) {
    case 'diacritize': return Number(output.characters);
    case 'decide': return Number(output.decisions);
    default: return 1;
  }
}
