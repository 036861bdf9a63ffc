/**
 * Outputs of the item results a route gets from {@link RouteKit.dispatch} (./types.ts).
 */
import type { ItemResult } from '../events/contract.ts';
import { ServiceError, codeOf } from '../lib/errors.ts';

/**
 * The output of a single item, or its failure as an error.
 * @throws ServiceError with the failure's code and status
 */
export function outputOf<O>(r: ItemResult<O>): O {
  if (r.failure) throw new ServiceError(codeOf(r.failure), r.failure.error);
  return r.output as O;
}

/**
 * Outputs of a batch whose route has no per-item failure entries: the first failure
 * fails the request.
 * @throws ServiceError with the first failure's code and status, its message prefixed `item <i>: `
 */
export function outputsOf<O>(rs: Array<ItemResult<O>>): O[] {
  return rs.map((r, i) => {
    if (r.failure) throw new ServiceError(codeOf(r.failure), `item ${i}: ${r.failure.error}`);
    return r.output as O;
  });
}
