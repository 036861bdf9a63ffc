/**
 * Outcome events of the requests this gateway answers (schemas/common/outcome.avsc,
 * issue 16), written to `<prefix>.outcomes` in batches (an {@link EventRecorder}) for the
 * analytics consumers. Unlike usage, every answer is reported: refusals, failures,
 * timeouts and clients that went away too. They never hold a text.
 */
import type { Logger } from 'pino';
import type { EventCodec } from '../events/codec.ts';
import { outcomeEvents } from '../lib/metrics.ts';
import type { Producer } from '../transport/types.ts';
import { outcomeMessage } from '../events/outcomes.ts';
import { EventRecorder } from './event-recorder.ts';

/**
 * Longest wait before outcome events are written, ms. Nobody waits for them (the dashboard
 * refreshes every 5 s), and each write becomes a message and a store transaction of the
 * analytics consumer: at the usage recorder's 50 ms, outcome events cost the embedded
 * pipeline about 10 % of its throughput in `npm run bench` on 2 cores. A gateway that
 * crashes loses up to this long of them.
 */
export const OUTCOME_LINGER_MS = 1000;

/** See the module comment. */
export class OutcomeRecorder extends EventRecorder<'common/outcome'> {
  constructor(producer: Producer, codec: EventCodec, topic: string, log: Logger, lingerMs = OUTCOME_LINGER_MS) {
    super(producer, codec, topic, 'common/outcome', outcomeEvents, 'outcome events', log, lingerMs, outcomeMessage);
  }
}
