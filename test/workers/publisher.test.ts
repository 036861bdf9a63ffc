/**
 * Request id and item index of a request event (they make the usage event id): from
 * headers, else from the correlation id the gateway sends, else from the event's position.
 */
import { describe, expect, it } from 'vitest';
import { H } from '../../services/events/topics.ts';
import type { ConsumedMessage } from '../../services/transport/types.ts';
import { requestOf } from '../../services/workers/publisher.ts';

const msg = (headers: Record<string, string>): ConsumedMessage => ({ topic: 't', partition: 2, offset: 41, key: null, value: Buffer.alloc(0), headers, timestamp: 0 });

describe('requestOf', () => {
  it('parses the gateway correlation id <request-id>:<item-index>, also when the request id holds colons', () => {
    expect(requestOf(msg({ [H.correlationId]: 'req-9:3' }))).toEqual({ requestId: 'req-9', itemIndex: 3 });
    expect(requestOf(msg({ [H.correlationId]: 'a:b:c:12' }))).toEqual({ requestId: 'a:b:c', itemIndex: 12 });
  });
  it('prefers request-id and item-index headers (bulk producers)', () => {
    expect(requestOf(msg({ [H.correlationId]: 'job:7', [H.requestId]: 'job-x', [H.itemIndex]: '70' }))).toEqual({ requestId: 'job-x', itemIndex: 70 });
  });
  it('falls back to the event position when the correlation id has no item index', () => {
    expect(requestOf(msg({ [H.correlationId]: 'no-index' }))).toEqual({ requestId: 't:2:41', itemIndex: 0 });
    expect(requestOf(msg({}))).toEqual({ requestId: 't:2:41', itemIndex: 0 });
  });
});
