/**
 * Topic names and message headers of the pipeline (docs/events.md).
 */
import type { Capability } from '../capabilities/index.ts';

/** Topic names under a prefix. */
export interface Topics {
  /** `<prefix>.<capability>.requests`: request events, each one item or several items of one request (header `items`) */
  requests(c: Capability): string;
  /** `<prefix>.replies.<instance>`: results for one gateway instance */
  replies(instanceId: string): string;
  /** `<prefix>.usage`: the usage events (one per billable item) of a micro-batch and API key per message */
  usage: string;
  /** `<prefix>.outcomes`: outcome events (schemas/common/outcome.avsc) for analytics, one message per writer's batch and API key */
  outcomes: string;
  /** `<prefix>.workers`: worker heartbeats */
  workers: string;
  /** `<prefix>.control`: warm-up commands */
  control: string;
  /** `<prefix>.cancellations`: requests whose client went away (schemas/control/cancel.avsc) */
  cancellations: string;
  /** `<prefix>.<capability>.dlq`: request events that failed DLQ_MAX_ATTEMPTS times or do not decode */
  deadLetter(c: Capability): string;
}

/** Topic names for a prefix. */
export function topicsFor(prefix: string): Topics {
  return {
    requests: (c) => `${prefix}.${c}.requests`,
    replies: (id) => `${prefix}.replies.${id}`,
    usage: `${prefix}.usage`,
    outcomes: `${prefix}.outcomes`,
    workers: `${prefix}.workers`,
    control: `${prefix}.control`,
    cancellations: `${prefix}.cancellations`,
    deadLetter: (c) => `${prefix}.${c}.dlq`,
  };
}

/** Header names of request and result events. */
export const H = {
  /**
   * unique per request event: `<request-id>:<item-index>`, the index of its (first) item
   * among the request's items
   */
  correlationId: 'correlation-id',
  /**
   * request and result events holding several items (schemas `<capability>/requests` and
   * `/results`): how many the request event holds; absent on one-item events
   */
  items: 'items',
  /** topic the result goes to */
  replyTopic: 'reply-topic',
  /** partition of the reply topic */
  replyPartition: 'reply-partition',
  requestId: 'request-id',
  itemIndex: 'item-index',
  /** id of the API key the item is billed to */
  keyId: 'key-id',
  model: 'model',
  /** ms since the epoch after which nobody waits for the result */
  deadline: 'deadline',
  capability: 'capability',
  /** dead-letter events: why the item failed */
  error: 'error',
  /** dead-letter events: how many times it was tried */
  attempts: 'attempts',
  /** dead-letter events: where it came from, `<topic>:<partition>:<offset>` */
  source: 'source',
  /**
   * `at-delivery`: the gateway bills the item when it delivers the answer, so the worker
   * publishes no usage for it; absent (bulk producers): the worker bills it when it
   * publishes the result
   */
  billing: 'billing',
  /** result events: ms from the worker taking the item to its micro-batch starting */
  queueMs: 'queue-ms',
  /** result events: ms the item's micro-batch ran */
  inferenceMs: 'inference-ms',
  /**
   * result events: items of the micro-batch that ran the item (of the micro-batches run in
   * one hand-over, under a backlog); `inference-ms` / this is one item's share of the run
   */
  batchItems: 'batch-items',
  /**
   * corpus job topics: the end-of-job marker a bulk source writes once it has sent every
   * text (an empty value; `job-texts`: how many texts the job has), so that the sink knows when
   * the job is complete
   */
  jobTexts: 'job-texts',
} as const;

/**
 * Items of one several-item request event at most: a worker parks an event claiming
 * more in the dead-letter topic (the gateway writes at most 64; bulk sources choose
 * their own, up to this).
 */
export const MAX_EVENT_ITEMS = 1024;
