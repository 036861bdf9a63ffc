/**
 * Item results as they cross the event log (the `output`/`failure` fields of every
 * `<capability>/result` schema, services/events/contract.ts).
 */
import { ERROR_STATUS, type ErrorCode } from '../lib/errors.ts';
import type { ResultSchema } from './codec.ts';
import type { Failure, ItemResult, SchemaValues } from './contract.ts';

/** The failed result of an item, with the HTTP status of its code. */
export function failed(code: ErrorCode, error: string): { output: null; failure: Failure } {
  return { output: null, failure: { status: ERROR_STATUS[code], error, code } };
}

/**
 * A decoded result event as an {@link ItemResult}: the failure when it has one, else its
 * output.
 * @throws Error when it has neither (a result event that does not follow its schema's rule)
 */
export function itemResult<O>(r: { output?: O | null; failure?: Failure | null } | SchemaValues[ResultSchema]): ItemResult<O> {
  if (r.failure) return { output: null, failure: r.failure };
  if (r.output === undefined || r.output === null) throw new Error('a result event has neither output nor failure');
  return { output: r.output as O, failure: null };
}
