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
import { EventRecorder } from './event-recorder.ts';

/** See the module comment. */
export class OutcomeRecorder extends EventRecorder<'common/outcome'> {
  constructor(producer: Producer, codec: EventCodec, topic: string, log: Logger) {
    super(producer, codec, topic, 'common/outcome', outcomeEvents, 'outcome events', log);
  }
}
