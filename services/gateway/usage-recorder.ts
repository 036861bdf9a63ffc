/**
 * Billing at delivery: the usage events of answers this gateway delivered, written to
 * the usage topic (an {@link EventRecorder}). An answer is delivered when its response was
 * written out in full (the response's `finish`); a request answered 4xx/5xx, timed out
 * (504) or whose client went away first writes no usage, so the ledger holds exactly what
 * callers received (docs/security.md). A gateway that crashes loses at most one linger's
 * usage (under-billing, never over-billing).
 */
import type { Logger } from 'pino';
import type { EventCodec } from '../events/codec.ts';
import { deliveredUsage } from '../lib/metrics.ts';
import type { Producer } from '../transport/types.ts';
import { EventRecorder, LINGER_MS } from './event-recorder.ts';

export { LINGER_MS, MAX_BATCH_EVENTS, MAX_BUFFERED_EVENTS } from './event-recorder.ts';

/** See the module comment. `pending` is part of the billing lag that `GET /v1/usage` reports. */
export class UsageRecorder extends EventRecorder<'common/usage'> {
  constructor(producer: Producer, codec: EventCodec, topic: string, log: Logger) {
    super(producer, codec, topic, 'common/usage', deliveredUsage, 'usage of delivered answers', log, LINGER_MS, (events) => ({ events }));
  }
}
