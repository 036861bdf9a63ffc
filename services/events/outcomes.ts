/**
 * Fields of outcome events (schemas/common/outcome.avsc, issue 16) that the gateway and
 * the workers fill alike: the language-ID answer's label and confidence bucket (never the
 * text), and the HTTP status and code of an item's result.
 */
import type { Capability } from '../capabilities/index.ts';
import type { ItemResult } from './contract.ts';

/** The confidence in tenths, 0 to 9 (1.0 falls in 9). */
export const confidenceBucket = (confidence: number): number => Math.max(0, Math.min(9, Math.floor(confidence * 10)));

/** The label and confidence bucket of a language-ID result; nulls for other capabilities and failures. */
export function languageFields(capability: Capability, result: ItemResult): { label: string | null; confidenceBucket: number | null } {
  const out = result.output as { label?: unknown; confidence?: unknown } | null;
  if (capability !== 'language-id' || !out || typeof out.label !== 'string' || typeof out.confidence !== 'number') return { label: null, confidenceBucket: null };
  return { label: out.label, confidenceBucket: confidenceBucket(out.confidence) };
}

/** The HTTP status and error code of an item's result (200 and null for a success). */
export const statusOf = (result: ItemResult): { status: number; code: string | null } =>
  (result.failure ? { status: result.failure.status, code: result.failure.code || null } : { status: 200, code: null });
