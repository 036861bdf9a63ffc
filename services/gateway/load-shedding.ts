/**
 * Load shedding: how many items (texts, documents, passages, cases) a gateway lets into
 * the pipeline per capability, from admission until the response ends or the client goes.
 * Beyond the capability's limit a request is answered 503 `OVERLOADED` with `Retry-After`
 * at once, instead of queueing behind work that would only answer it late.
 *
 * Two bounds per capability:
 * - a **ceiling**, fixed (MAX_INFLIGHT_ITEMS over each module's `maxInflightItems`): what
 *   one gateway may hold at all, a bound on memory;
 * - an **adaptive limit** at or below it, set by what overload costs the caller: the
 *   queue wait of the items, as the workers report it with each result (`queue-ms` in
 *   the micro-batch queue, plus the part of the micro-batch's run spent on the items
 *   batched with it; services/gateway/correlator.ts), for each request's first event.
 *   The signal is CoDel's (Nichols & Jacobson, "Controlling Queue Delay", ACM Queue 2012;
 *   RFC 8289 §3): the smallest wait seen in an interval of {@link INTERVAL_MS}, so that a
 *   burst that drains does not count, but a standing queue does. The control is AIMD
 *   (Chiu & Jain 1989), as in adaptive concurrency limits (Netflix concurrency-limits):
 *   an interval whose smallest wait is over the capability's target cuts the limit to
 *   {@link DECREASE} of the items then in flight; an interval within the target in which
 *   the limit was used to the full (or refused a request) raises it by {@link INCREASE};
 *   otherwise it stays, or comes back up to its floor (what the workers answered within
 *   the target, {@link AdaptiveLimit.floor}). It settles near throughput × (target + service time)
 *   under overload, whatever the throughput of the workers behind. Shedding pays where
 *   the model is the bottleneck; where HTTP is, a refusal costs nearly what an answer does
 *   (docs/security.md, "Load shedding", says how the targets were chosen for that).
 *
 * Targets (QUEUE_TARGET_MS over each module's `queueTargetMs`) are per capability, since a
 * language-ID text runs in microseconds and a generated answer in seconds. Readiness
 * (`GET /ready`) goes false while a capability holds {@link NOT_READY_SHARE} of its limit.
 */
import { CAPABILITIES, CAPABILITY_MODULES, type Capability } from '../capabilities/index.ts';
import { ServiceError } from '../lib/errors.ts';
import { queueWait, shedRequests } from '../lib/metrics.ts';

/**
 * Default ceilings, items in flight per gateway: each capability module's
 * `maxInflightItems` (the reasoning beside each in services/capabilities/<name>/index.ts).
 */
export const DEFAULT_INFLIGHT_ITEMS: Readonly<Record<Capability, number>> = Object.fromEntries(
  CAPABILITY_MODULES.map((m) => [m.name, m.maxInflightItems])) as Record<Capability, number>;

/** Default queue-wait targets, ms: each capability module's `queueTargetMs`. */
export const DEFAULT_QUEUE_TARGET_MS: Readonly<Record<Capability, number>> = Object.fromEntries(
  CAPABILITY_MODULES.map((m) => [m.name, m.queueTargetMs])) as Record<Capability, number>;

/** Share of a limit at which readiness goes false. */
export const NOT_READY_SHARE = 0.9;
/** The controller's interval, ms (CoDel's default, RFC 8289 §4.3). */
export const INTERVAL_MS = 100;
/** Factor of the items in flight the limit falls to after an interval over the target. */
export const DECREASE = 0.9;
/** Share of the limit it rises by after an interval within the target. */
export const INCREASE = 0.25;
/** Share of the ceiling below which the limit does not fall while the items do not wait. */
export const FLOOR_SHARE = 1 / 8;
/** Items below which the limit does not fall while the items do not wait (or the ceiling, if lower). */
export const FLOOR_ITEMS = 64;
/** Seconds of answer rates behind the floor. */
export const RATE_WINDOWS = 10;
/**
 * Parses a `capability=N,...` setting (MAX_INFLIGHT_ITEMS, QUEUE_TARGET_MS) over `defaults`.
 * @throws Error naming an unknown capability or a value below 1
 */
export function parseCapabilityNumbers(setting: string, spec: string, defaults: Readonly<Record<Capability, number>>): Record<Capability, number> {
  const out = { ...defaults };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value] = part.split('=');
    if (!CAPABILITIES.includes(name as Capability)) throw new Error(`${setting}: unknown capability "${name}" (one of ${CAPABILITIES.join(', ')})`);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${setting}: ${name} needs a whole number ≥ 1, not "${value}"`);
    out[name as Capability] = n;
  }
  return out;
}

/**
 * Parses MAX_INFLIGHT_ITEMS (`capability=N,...`) over the defaults.
 * @throws Error naming an unknown capability or a limit below 1
 */
export const parseInflightItems = (spec: string): Record<Capability, number> => parseCapabilityNumbers('MAX_INFLIGHT_ITEMS', spec, DEFAULT_INFLIGHT_ITEMS);

/**
 * Parses QUEUE_TARGET_MS (`capability=ms,...`) over the defaults.
 * @throws Error naming an unknown capability or a target below 1 ms
 */
export const parseQueueTargets = (spec: string): Record<Capability, number> => parseCapabilityNumbers('QUEUE_TARGET_MS', spec, DEFAULT_QUEUE_TARGET_MS);

/**
 * The adaptive limit of one capability (see the module comment). Time comes from `now`
 * (ms, monotonic); intervals close when the next call sees that one has passed.
 */
export class AdaptiveLimit {
  /** items admitted now, at most `ceiling` */
  limit: number;
  /**
   * the least the limit stands at while the items do not wait, before any throughput is
   * measured: {@link FLOOR_SHARE} of the ceiling, and at least {@link FLOOR_ITEMS} (or the
   * ceiling), so that a few requests at once never wait for it to grow
   */
  readonly baseFloor: number;
  /** items answered per second: the current second's count, and the best of the last {@link RATE_WINDOWS} seconds */
  private rate = { start: 0, count: 0, best: [] as number[] };
  /** the smallest queue wait of the interval, ms (Infinity: none seen) */
  private minWait = Infinity;
  /** the smallest wait of the last closed interval that had one, ms */
  lastWait = 0;
  private intervalStart: number;
  /** most items in flight at once during the interval */
  private peak = 0;
  /** whether a request was refused during the interval */
  private refused = false;

  /**
   * @param ceiling items, ≥ 1
   * @param targetMs queue wait tolerated, ms
   */
  constructor(
    readonly ceiling: number,
    readonly targetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.baseFloor = Math.max(Math.ceil(ceiling * FLOOR_SHARE), Math.min(ceiling, FLOOR_ITEMS));
    this.limit = this.baseFloor;
    this.intervalStart = now();
    this.rate.start = this.intervalStart;
  }

  /**
   * Closes the interval once it has passed, adjusting the limit.
   * @param inFlight items in flight now
   */
  tick(inFlight: number): void {
    const now = this.now();
    if (now - this.intervalStart < INTERVAL_MS) return;
    const peak = Math.max(this.peak, inFlight);
    const seen = this.minWait !== Infinity;
    if (seen && this.minWait > this.targetMs) {
      this.limit = Math.max(1, Math.floor(DECREASE * Math.min(this.limit, peak)));
    } else if (this.refused || peak >= this.limit * NOT_READY_SHARE) {
      // in use to the full and the items do not wait: room for more
      this.limit = Math.min(this.ceiling, this.limit + Math.max(1, Math.ceil(this.limit * INCREASE)));
    } else {
      // not in use to the full and the items do not wait: the limit stays, or comes back
      // up to the floor after a fall. It is thus the most items seen in flight while they
      // did not wait, so a burst into a quiet gateway meets what the workers were seen to
      // take, not the ceiling (a diacritization burst of 1,024 texts against a ceiling of
      // 1,024 once queued 2.5 s of work); a limit that eased down between bursts instead
      // refused most of each burst of a client that sends once a second
      this.limit = Math.max(this.limit, this.floor);
    }
    if (seen) this.lastWait = this.minWait;
    this.minWait = Infinity;
    this.peak = inFlight;
    this.refused = false;
    this.intervalStart = now;
  }

  /**
   * The least the limit stands at while the items do not wait: what the workers were seen
   * to answer within the target (the best rate of the last {@link RATE_WINDOWS} seconds ×
   * the target: by Little's law, items that wait at most the target), at least the base
   * floor, at most the ceiling. A client that sends bursts of batches once a second then
   * meets room for its bursts, and a slow model a floor of what it answers in the target.
   */
  get floor(): number {
    const best = this.rate.best.length > 0 ? Math.max(...this.rate.best) : 0;
    return Math.min(this.ceiling, Math.max(this.baseFloor, Math.floor(best * this.targetMs / 1000)));
  }

  /** Notes items answered (given back after their answer), for the rate behind {@link floor}. */
  answered(items: number): void {
    const now = this.now();
    const elapsed = now - this.rate.start;
    if (elapsed >= 1000) {
      this.rate.best.push((this.rate.count * 1000) / elapsed);
      if (this.rate.best.length > RATE_WINDOWS) this.rate.best.shift();
      this.rate.start = now;
      this.rate.count = 0;
    }
    this.rate.count += items;
  }

  /** Notes a queue wait, ms. */
  observe(waitMs: number, inFlight: number): void {
    this.tick(inFlight);
    if (waitMs < this.minWait) this.minWait = waitMs;
  }

  /** Notes the items in flight after an admission. */
  admitted(inFlight: number): void {
    if (inFlight > this.peak) this.peak = inFlight;
  }

  /** Notes a refusal. */
  refuse(): void { this.refused = true; }
}

/** See the module comment. */
export class InflightItems {
  private readonly used = new Map<Capability, number>();
  private readonly adaptive = new Map<Capability, AdaptiveLimit>();

  /**
   * @param ceilings items per capability
   * @param targetsMs queue-wait targets per capability, ms (default the modules')
   * @param now monotonic clock, ms (tests give their own)
   */
  constructor(readonly ceilings: Readonly<Record<Capability, number>>, targetsMs: Readonly<Record<Capability, number>> = DEFAULT_QUEUE_TARGET_MS, now?: () => number) {
    for (const c of CAPABILITIES) this.adaptive.set(c, new AdaptiveLimit(ceilings[c], targetsMs[c], now));
  }

  /** Items in flight for a capability. */
  inFlight(capability: Capability): number { return this.used.get(capability) ?? 0; }

  /** The capability's limit now: at most its ceiling. */
  limit(capability: Capability): number {
    const a = this.adaptive.get(capability)!;
    a.tick(this.inFlight(capability));
    return a.limit;
  }

  /**
   * Notes the queue wait of a request's first event (the correlator's measure, see the module comment).
   * @param waitMs ms, ≥ 0
   */
  observeWait(capability: Capability, waitMs: number): void {
    queueWait.observe({ capability }, waitMs / 1000);
    this.adaptive.get(capability)!.observe(waitMs, this.inFlight(capability));
  }

  /**
   * Refuses at once when the capability is at its limit (no room for even one item).
   * @throws ServiceError OVERLOADED (503, Retry-After 1 s)
   */
  assertRoom(capability: Capability): void {
    const used = this.inFlight(capability);
    if (used >= this.limit(capability)) throw this.overloaded(capability, used);
  }

  /**
   * Admits `items` of a request. A request is admitted when the capability has room, or
   * when nothing of it is in flight (so a batch larger than the limit still runs alone).
   * @returns the function that gives the items back (idempotent)
   * @throws ServiceError OVERLOADED (503, Retry-After 1 s) beyond the limit
   */
  acquire(capability: Capability, items: number): () => void {
    const used = this.inFlight(capability);
    if (used > 0 && used + items > this.limit(capability)) throw this.overloaded(capability, used);
    this.set(capability, used + items);
    this.adaptive.get(capability)!.admitted(used + items);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.set(capability, this.inFlight(capability) - items);
      this.adaptive.get(capability)!.answered(items);
    };
  }

  private overloaded(capability: Capability, used: number): ServiceError {
    shedRequests.inc({ reason: capability });
    const a = this.adaptive.get(capability)!;
    a.refuse();
    return new ServiceError('OVERLOADED', `${capability} is overloaded on this gateway (${used} items in flight, at most ${a.limit} now; queue wait ${Math.round(a.lastWait)} ms, target ${a.targetMs} ms); retry shortly`, { retryAfterS: 1 });
  }

  /** Capabilities holding {@link NOT_READY_SHARE} of their limit or more. */
  overloadedCapabilities(): Capability[] {
    return CAPABILITIES.filter((c) => this.inFlight(c) > 0 && this.inFlight(c) >= this.limit(c) * NOT_READY_SHARE);
  }

  /** Whether every capability is below {@link NOT_READY_SHARE} of its limit. */
  ready(): boolean { return this.overloadedCapabilities().length === 0; }

  private set(capability: Capability, n: number): void {
    this.used.set(capability, n);
  }
}
