/**
 * Rate limits of a gateway (rate-limiter-flexible, fixed windows in memory):
 * - one budget per API key over every route together, counted in billable units: a
 *   request costs 1 unit when it arrives (before its body is read) and the rest of its
 *   billable units once its body is validated, so a batch of 256 texts costs 256;
 * - one budget per client address for what comes without a valid key: failed
 *   authentication and the public GET routes (`/health`, `/ready` and `/metrics` are not
 *   counted, so probes and scrapers are never refused);
 * - one budget per API key of reads of its own account (usage, analytics), counted in
 *   requests apart from its billable units, so a key that has spent those can still read
 *   what it spent.
 *
 * Every answer to a counted request carries `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds; draft-ietf-httpapi-ratelimit-headers, the fields most clients read);
 * a refusal is 429 with `Retry-After`. The budgets live in each gateway's memory: with N
 * gateways behind a load balancer a key gets up to N budgets (docs/security.md).
 */
import type { FastifyReply } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../lib/errors.ts';

/** Settings of {@link RateLimits}. */
export interface RateLimitOptions {
  /** billable units per API key per window */
  keyMax: number;
  /** requests per client address per window without a valid key */
  anonMax: number;
  /** reads of its own account per API key per window */
  readMax: number;
  /** window, ms (whole seconds are used: rate-limiter-flexible counts in seconds) */
  windowMs: number;
}

/** See the module comment. */
export class RateLimits {
  private readonly key: RateLimiterMemory;
  private readonly anon: RateLimiterMemory;
  private readonly reads: RateLimiterMemory;
  private readonly windowS: number;

  constructor(private readonly o: RateLimitOptions) {
    this.windowS = Math.max(1, Math.round(o.windowMs / 1000));
    this.key = new RateLimiterMemory({ points: o.keyMax, duration: this.windowS, keyPrefix: 'key' });
    this.anon = new RateLimiterMemory({ points: o.anonMax, duration: this.windowS, keyPrefix: 'addr' });
    this.reads = new RateLimiterMemory({ points: o.readMax, duration: this.windowS, keyPrefix: 'read' });
  }

  /**
   * Takes `units` from a key's budget and sets the rate-limit headers.
   * @param taken units of the same request taken before (the 1 unit on arrival): the
   *   request is `taken + units` in all; units taken after validation are given back when
   *   refused, so only the arrival unit of a refused request counts
   * @throws ServiceError RATE_LIMITED (429, with Retry-After) when the budget is spent, or
   *   when the request alone is larger than the whole budget
   */
  async chargeKey(reply: FastifyReply, keyId: string, units: number, taken = 0): Promise<void> {
    if (taken + units > this.o.keyMax) {
      throw new ServiceError('RATE_LIMITED', `this request is ${taken + units} billable units, more than the ${this.o.keyMax} an API key may use per ${this.windowS} s`, { retryAfterS: this.windowS });
    }
    if (units <= 0) return;
    const first = taken === 0;
    try {
      this.headers(reply, this.o.keyMax, await this.key.consume(keyId, units));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      if (!first) await this.key.reward(keyId, units);
      this.headers(reply, this.o.keyMax, res);
      throw new ServiceError('RATE_LIMITED',
        `rate limit exceeded: this API key may use ${this.o.keyMax} billable units per ${this.windowS} s over all routes; retry in ${Math.ceil(res.msBeforeNext / 1000)} s`,
        { retryAfterS: res.msBeforeNext / 1000 });
    }
  }

  /**
   * Counts one request without a valid key against its client address.
   * @throws ServiceError RATE_LIMITED (429, with Retry-After) when the address's budget is spent
   */
  async chargeAddress(reply: FastifyReply, address: string): Promise<void> {
    await this.countOne(reply, this.anon, this.o.anonMax, address,
      (retryS) => `rate limit exceeded: at most ${this.o.anonMax} requests per ${this.windowS} s from one address without a valid API key; retry in ${retryS} s`);
  }

  /**
   * Counts one read of a key's own account (usage, analytics) against the key's read budget.
   * @throws ServiceError RATE_LIMITED (429, with Retry-After) when that budget is spent
   */
  async chargeRead(reply: FastifyReply, keyId: string): Promise<void> {
    await this.countOne(reply, this.reads, this.o.readMax, keyId,
      (retryS) => `rate limit exceeded: this API key may read its usage and analytics ${this.o.readMax} times per ${this.windowS} s; retry in ${retryS} s`);
  }

  /** Takes one request from `id`'s budget in `limiter` and sets the headers; @throws ServiceError RATE_LIMITED with `message(seconds to wait)` */
  private async countOne(reply: FastifyReply, limiter: RateLimiterMemory, max: number, id: string, message: (retryS: number) => string): Promise<void> {
    try {
      this.headers(reply, max, await limiter.consume(id, 1));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      this.headers(reply, max, res);
      throw new ServiceError('RATE_LIMITED', message(Math.ceil(res.msBeforeNext / 1000)), { retryAfterS: res.msBeforeNext / 1000 });
    }
  }

  private headers(reply: FastifyReply, limit: number, res: RateLimiterRes): void {
    reply.header('ratelimit-limit', limit);
    reply.header('ratelimit-remaining', Math.max(0, res.remainingPoints));
    reply.header('ratelimit-reset', Math.max(0, Math.ceil(res.msBeforeNext / 1000)));
  }
}
