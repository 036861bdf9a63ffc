/**
 * Load shedding: how many items (texts, documents, passages, cases) a gateway has in
 * flight per capability, from admission until the response ends or the client goes.
 * Beyond the capability's limit a request is answered 503 `OVERLOADED` with
 * `Retry-After` at once, instead of queueing behind work that would only finish after
 * its deadline. A limit is items in flight, so by Little's law the longest wait it
 * allows is limit / throughput: 8,192 language-ID texts at about 20,000 texts/s is about
 * 0.4 s of queue. Readiness (`GET /ready`) goes false while any capability is at 90 % of
 * its limit, so a load balancer sends new work elsewhere.
 */
import { CAPABILITIES, CAPABILITY_MODULES, type Capability } from '../capabilities/index.ts';
import { ServiceError } from '../lib/errors.ts';
import { shedRequests } from '../lib/metrics.ts';

/**
 * Default limits, items in flight per gateway: each capability module's
 * `maxInflightItems` (the reasoning beside each in services/capabilities/<name>/index.ts).
 */
export const DEFAULT_INFLIGHT_ITEMS: Readonly<Record<Capability, number>> = Object.fromEntries(
  CAPABILITY_MODULES.map((m) => [m.name, m.maxInflightItems])) as Record<Capability, number>;

/** Share of a limit at which readiness goes false. */
export const NOT_READY_SHARE = 0.9;

/**
 * Parses MAX_INFLIGHT_ITEMS (`capability=N,...`) over the defaults.
 * @throws Error naming an unknown capability or a limit below 1
 */
export function parseInflightItems(spec: string): Record<Capability, number> {
  const out = { ...DEFAULT_INFLIGHT_ITEMS };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value] = part.split('=');
    if (!CAPABILITIES.includes(name as Capability)) throw new Error(`MAX_INFLIGHT_ITEMS: unknown capability "${name}" (one of ${CAPABILITIES.join(', ')})`);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`MAX_INFLIGHT_ITEMS: ${name} needs a whole number ≥ 1, not "${value}"`);
    out[name as Capability] = n;
  }
  return out;
}

/** See the module comment. */
export class InflightItems {
  private readonly used = new Map<Capability, number>();

  constructor(readonly limits: Readonly<Record<Capability, number>>) {}

  /** Items in flight for a capability. */
  inFlight(capability: Capability): number { return this.used.get(capability) ?? 0; }

  /**
   * Refuses at once when the capability is at its limit (no room for even one item).
   * @throws ServiceError OVERLOADED (503, Retry-After 1 s)
   */
  assertRoom(capability: Capability): void {
    const used = this.inFlight(capability);
    if (used >= this.limits[capability]) throw this.overloaded(capability, used);
  }

  /**
   * Admits `items` of a request. A request is admitted when the capability has room, or
   * when nothing of it is in flight (so a batch larger than the limit still runs alone).
   * @returns the function that gives the items back (idempotent)
   * @throws ServiceError OVERLOADED (503, Retry-After 1 s) beyond the limit
   */
  acquire(capability: Capability, items: number): () => void {
    const used = this.inFlight(capability);
    const limit = this.limits[capability];
    if (used > 0 && used + items > limit) throw this.overloaded(capability, used);
    this.set(capability, used + items);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.set(capability, this.inFlight(capability) - items);
    };
  }

  private overloaded(capability: Capability, used: number): ServiceError {
    shedRequests.inc({ reason: capability });
    return new ServiceError('OVERLOADED', `${capability} is overloaded on this gateway (${used} items in flight, at most ${this.limits[capability]}); retry shortly`, { retryAfterS: 1 });
  }

  /** Whether every capability is below {@link NOT_READY_SHARE} of its limit. */
  ready(): boolean {
    for (const [c, n] of this.used) if (n >= this.limits[c] * NOT_READY_SHARE) return false;
    return true;
  }

  private set(capability: Capability, n: number): void {
    this.used.set(capability, n);
  }
}
