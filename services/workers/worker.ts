/**
 * A model worker for one capability: consumes `<prefix>.<capability>.requests`, forms
 * micro-batches per model, runs them in an inference thread, publishes each
 * micro-batch's results (to the reply topics named in the headers) and usage events
 * in one produce call, and only then lets the consumer commit. Items are skipped when
 * nobody waits for them any more: past their deadline, or cancelled by the gateway whose
 * client went away (`<prefix>.cancellations`). Usage is published here only for items
 * that the gateway does not bill at delivery (bulk producers; header `billing`). It also
 * publishes heartbeats (which models it serves), follows warm-up commands and unloads
 * idle models.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AVRO_CAPABILITY, BILLING_UNIT, modelsOf, usageQuantity, type Capability } from '../capabilities.ts';
import type { Config } from '../config.ts';
import type { EventCodec, RequestSchema, ResultSchema } from '../events/codec.ts';
import type { ItemResult, ModelStatus, SchemaValues, UsageEvent } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { H, topicsFor, type Topics } from '../events/topics.ts';
import { ServiceError, type ErrorCode } from '../lib/errors.ts';
import { cancelledItems, expiredItems, microBatchSize, queueDepth } from '../lib/metrics.ts';
import { ModelRepository } from '../models/repository.ts';
import type { Batch, ConsumedMessage, Consumer, OutgoingMessage, Producer, Transport } from '../transport/types.ts';
import { MicroBatcher, type BatchPolicy } from './batcher.ts';
import { InferenceThread } from './inference-pool.ts';
import { EngineError } from './engines/types.ts';

/** Engine module of each capability that has one in this release. */
const ENGINES: Partial<Record<Capability, URL>> = {
  'language-id': new URL(`./engines/language-id${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
};

/** Options of a worker. */
export interface WorkerOptions {
  capability: Capability;
  transport: Transport;
  codec: EventCodec;
  config: Config;
  logger: Logger;
  /** unique per process; default a random UUID */
  instanceId?: string;
  /** batching settings that win over every model's config.json (operations, tests) */
  batchPolicy?: Partial<BatchPolicy>;
}

interface Item { msg: ConsumedMessage; input: SchemaValues[RequestSchema]; }

/**
 * What the micro-batcher hands back for an item: its result, and the publication of its
 * micro-batch's results and usage, which goes on after the batcher has moved to the next
 * micro-batch (so inference never waits for the broker's acknowledgement).
 */
interface Outcome { result: ItemResult; published: Promise<void>; }

/**
 * Request id and item index of a request event: its `request-id` and `item-index`
 * headers, else parsed from a correlation id `<request-id>:<item-index>` (what the
 * gateway sends), else the event's position `<topic>:<partition>:<offset>` and 0.
 * They make the usage event id `<request-id>:<item-index>` (docs/events.md).
 */
export function requestOf(msg: ConsumedMessage): { requestId: string; itemIndex: number } {
  const h = msg.headers;
  const cid = h[H.correlationId] ?? '';
  const colon = cid.lastIndexOf(':');
  const parsed = colon > 0 && /^\d+$/.test(cid.slice(colon + 1)) ? { requestId: cid.slice(0, colon), itemIndex: Number(cid.slice(colon + 1)) } : undefined;
  return {
    requestId: h[H.requestId] ?? parsed?.requestId ?? `${msg.topic}:${msg.partition}:${msg.offset}`,
    itemIndex: h[H.itemIndex] !== undefined ? Number(h[H.itemIndex]) : parsed?.itemIndex ?? 0,
  };
}

/** Cancelled requests a worker remembers at most (the oldest are forgotten first). */
const MAX_CANCELLED = 100_000;

/** See the module comment. */
export class CapabilityWorker {
  readonly instanceId: string;
  private readonly topics: Topics;
  private readonly repo: ModelRepository;
  private readonly producer: Producer;
  private consumer?: Consumer;
  private control?: Consumer;
  private cancels?: Consumer;
  /** request id → its deadline (ms since the epoch), for requests whose client went away */
  private readonly cancelled = new Map<string, number>();
  private thread?: InferenceThread;
  private readonly batchers = new Map<string, MicroBatcher<Item, Outcome>>();
  private readonly lastUsed = new Map<string, number>();
  private readonly loaded = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private readonly log: Logger;

  constructor(private readonly opts: WorkerOptions) {
    this.instanceId = opts.instanceId ?? randomUUID();
    this.topics = topicsFor(opts.config.TOPIC_PREFIX);
    this.repo = new ModelRepository(opts.config.MODEL_REPOSITORY);
    this.producer = opts.transport.producer();
    this.log = opts.logger.child({ service: `worker:${opts.capability}`, instance: this.instanceId });
  }

  private get requestSchema(): RequestSchema { return `${this.opts.capability}/request` as RequestSchema; }
  private get resultSchema(): ResultSchema { return `${this.opts.capability}/result` as ResultSchema; }

  /** Starts consuming; resolves once the first heartbeat is published. */
  async start(): Promise<void> {
    const { transport, capability, config } = this.opts;
    const engine = ENGINES[capability];
    if (engine) {
      this.thread = new InferenceThread(engine, {
        repository: config.MODEL_REPOSITORY, executionProvider: config.EXECUTION_PROVIDER, intraOpThreads: config.INFERENCE_THREADS,
      }, this.log);
    }
    const requests = this.topics.requests(capability);
    await transport.ensureTopics([
      { name: requests, partitions: config.TOPIC_PARTITIONS },
      { name: this.topics.deadLetter(capability), partitions: 1 },
      { name: this.topics.workers, partitions: 1, retentionMs: 60_000 },
      { name: this.topics.control, partitions: 1, retentionMs: 3_600_000 },
      { name: this.topics.cancellations, partitions: 1, retentionMs: 600_000 },
    ]);
    this.consumer = transport.consumer({ groupId: `${config.TOPIC_PREFIX}.workers.${capability}`, topics: [requests], fromBeginning: true, maxInFlightBatches: config.WORKER_MAX_IN_FLIGHT_BATCHES });
    this.control = transport.consumer({ groupId: `${config.TOPIC_PREFIX}.control.${this.instanceId}`, topics: [this.topics.control], background: true });
    this.cancels = transport.consumer({ groupId: `${config.TOPIC_PREFIX}.cancellations.${this.instanceId}`, topics: [this.topics.cancellations], background: true });
    // the three groups join at once (each join waits for the group coordinator)
    await Promise.all([
      this.consumer.run((b) => this.handleBatch(b)),
      this.control.run((b) => this.handleControl(b)),
      this.cancels.run((b) => this.handleCancels(b)),
    ]);
    await this.heartbeat();
    this.timers.push(setInterval(() => void this.heartbeat().catch((err) => this.log.warn({ err }, 'heartbeat failed')), config.WORKER_HEARTBEAT_MS));
    this.timers.push(setInterval(() => void this.unloadIdle(), Math.min(60_000, config.MODEL_IDLE_UNLOAD_MS / 4)));
    for (const t of this.timers) t.unref();
  }

  /** Items queued in this worker's micro-batchers. */
  get queued(): number {
    let n = 0;
    for (const b of this.batchers.values()) n += b.depth;
    return n;
  }

  /** Models of this capability and whether this worker can serve them. */
  status(): ModelStatus[] {
    return modelsOf(this.opts.capability).map((name) => {
      const cfg = this.thread ? this.repo.config(name) : null;
      return {
      name,
      installed: cfg !== null,
      languages: Number(cfg?.languages ?? 0),
      loaded: this.loaded.has(name),
      queueDepth: this.batchers.get(name)?.depth ?? 0,
      };
    });
  }

  private async heartbeat(stopping = false): Promise<void> {
    const models = this.status();
    for (const m of models) queueDepth.set({ model: m.name }, m.queueDepth);
    await this.producer.send(this.topics.workers, [{
      key: this.instanceId,
      value: await this.opts.codec.encode('control/worker-status', {
        instanceId: this.instanceId, capability: this.opts.capability, models, timestampMs: Date.now(), stopping,
      }),
    }]);
  }

  private async handleControl(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      let cmd: { capability: string; models: string[] };
      try { cmd = await this.opts.codec.decode('control/warmup', msg.value); } catch { continue; }
      if (cmd.capability !== this.opts.capability) continue;
      for (const model of cmd.models) void this.load(model).catch((err) => this.log.warn({ err, model }, 'warm-up failed'));
    }
  }

  private async handleCancels(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      let cmd: { requestId: string; untilMs: number | Date };
      try { cmd = await this.opts.codec.decode('control/cancel', msg.value); } catch { continue; }
      const until = Number(cmd.untilMs instanceof Date ? cmd.untilMs.getTime() : cmd.untilMs);
      if (until <= Date.now()) continue;
      if (this.cancelled.size >= MAX_CANCELLED) {
        const now = Date.now();
        for (const [id, t] of this.cancelled) if (t <= now) this.cancelled.delete(id);
        while (this.cancelled.size >= MAX_CANCELLED) this.cancelled.delete(this.cancelled.keys().next().value!);
      }
      this.cancelled.set(cmd.requestId, until);
    }
  }

  /** Whether nobody waits for an item any more because its request was cancelled. */
  private isCancelled(msg: ConsumedMessage): boolean {
    if (this.cancelled.size === 0) return false;
    const until = this.cancelled.get(requestOf(msg).requestId);
    if (until === undefined) return false;
    if (until <= Date.now()) { this.cancelled.delete(requestOf(msg).requestId); return false; }
    return true;
  }

  /** Loads a model into the inference thread. @throws EngineError(503) when not installed */
  async load(model: string): Promise<void> {
    if (!this.thread || !this.repo.installed(model)) throw new EngineError('MODEL_NOT_INSTALLED', `model ${model} is not installed`);
    await this.thread.load(model);
    this.loaded.add(model);
    this.lastUsed.set(model, Date.now());
    this.log.info({ model }, 'model loaded');
  }

  private async unloadIdle(): Promise<void> {
    const now = Date.now();
    for (const model of [...this.loaded]) {
      if (now - (this.lastUsed.get(model) ?? 0) < this.opts.config.MODEL_IDLE_UNLOAD_MS || (this.batchers.get(model)?.depth ?? 0) > 0) continue;
      this.loaded.delete(model);
      await this.thread?.unload(model).catch(() => undefined);
      this.log.info({ model }, 'model unloaded after idle time');
    }
  }

  /** Handles one consumed batch; resolves (and so commits) once every item's result is published. */
  private async handleBatch(batch: Batch): Promise<void> {
    const work: Array<Promise<unknown>> = [];
    const poison: Array<{ topic: string; m: OutgoingMessage }> = [];
    for (const msg of batch.messages) {
      let input: Item['input'];
      try {
        input = await this.opts.codec.decode(this.requestSchema, msg.value);
      } catch (err) {
        // a poison event: answer it (when it names a reply topic) and park it in the dead-letter topic
        const error = `request event does not decode with schema ${this.requestSchema}: ${(err as Error).message}`;
        this.log.error({ err, offset: msg.offset, partition: msg.partition, correlationId: msg.headers[H.correlationId] }, 'undecodable request event sent to the dead-letter topic');
        poison.push({ topic: this.topics.deadLetter(this.opts.capability), m: this.deadLetter(msg, error, 1) });
        const reply = await this.failureMessage(msg, 'INVALID_REQUEST', error);
        if (reply) poison.push({ topic: msg.headers[H.replyTopic]!, m: reply.message });
        continue;
      }
      const deadline = Number(msg.headers[H.deadline] ?? Infinity);
      if (deadline <= Date.now()) { expiredItems.inc({ model: input.model }); continue; }
      if (this.isCancelled(msg)) { cancelledItems.inc({ model: input.model }); continue; }
      // a consumed batch larger than the queue waits for room instead of being refused
      const { result } = await this.batcher(input.model).enqueue({ msg, input }, deadline);
      this.applyBackpressure();
      work.push(result.then((o) => o.published, (err: unknown) => {
        if (err instanceof ServiceError) return this.publish([{ msg, input }], [failed(err.code, err.message)]);
        throw err;
      }));
    }
    if (poison.length > 0) await this.producer.sendBatch(this.groupByTopic(poison));
    this.applyBackpressure();
    await Promise.all(work);
  }

  private paused = false;

  /**
   * Pauses fetching while the micro-batch queues hold 3/4 of their capacity, and resumes
   * below 1/4, so a burst waits in the log instead of being refused with 503 QUEUE_FULL.
   */
  private applyBackpressure(): void {
    let capacity = 0;
    for (const model of this.batchers.keys()) capacity += this.repo.config(model)?.max_queue_size ?? 1024;
    if (capacity === 0) return;
    const depth = this.queued;
    if (!this.paused && depth >= capacity * 0.75) { this.paused = true; this.consumer?.pause(); this.log.info({ depth, capacity }, 'paused fetching: queues nearly full'); }
    else if (this.paused && depth <= capacity * 0.25) { this.paused = false; this.consumer?.resume(); this.log.info({ depth, capacity }, 'resumed fetching'); }
  }

  /** A dead-letter copy of a request event, with the error and attempts in headers. */
  private deadLetter(msg: ConsumedMessage, error: string, attempts: number): OutgoingMessage {
    return {
      key: msg.key, value: msg.value,
      headers: { ...msg.headers, [H.error]: error.slice(0, 2000), [H.attempts]: String(attempts), [H.source]: `${msg.topic}:${msg.partition}:${msg.offset}` },
    };
  }

  private batcher(model: string): MicroBatcher<Item, Outcome> {
    let b = this.batchers.get(model);
    if (!b) {
      const cfg = this.repo.config(model);
      b = new MicroBatcher<Item, Outcome>(
        {
          maxBatchSize: cfg?.max_batch_size ?? 32,
          maxQueueDelayMs: cfg?.max_queue_delay_ms ?? 5,
          maxQueueSize: cfg?.max_queue_size ?? 1024,
          ...(this.opts.config.BATCH_MAX_QUEUE_DELAY_MS >= 0 ? { maxQueueDelayMs: this.opts.config.BATCH_MAX_QUEUE_DELAY_MS } : {}),
          ...this.opts.batchPolicy,
        },
        (items) => this.runMicroBatch(model, items),
        // nobody waits for an expired or cancelled item any more: nothing is published for it
        (_item, reason) => {
          (reason === 'expired' ? expiredItems : cancelledItems).inc({ model });
          return { result: failed('DEADLINE_EXCEEDED', `item ${reason} before it ran`), published: Promise.resolve() };
        },
        (item) => this.isCancelled(item.msg),
      );
      this.batchers.set(model, b);
    }
    return b;
  }

  /**
   * Runs one micro-batch and starts publishing its results and usage in one produce
   * call; resolves after inference, with the publication as each item's `published`.
   */
  private async runMicroBatch(model: string, items: Item[]): Promise<Outcome[]> {
    microBatchSize.observe({ model }, items.length);
    this.lastUsed.set(model, Date.now());
    let results: ItemResult[];
    if (!this.thread || !this.repo.installed(model)) {
      results = items.map(() => failed('MODEL_NOT_INSTALLED', `model ${model} is not installed`));
    } else {
      try {
        results = await this.thread.run(model, items.map((i) => i.input));
        this.loaded.add(model);
      } catch (err) {
        // a status from the engine is the items' answer; a crash is not: count the
        // attempt, dead-letter items tried DLQ_MAX_ATTEMPTS times, and let the rest be
        // delivered again (their offsets stay uncommitted)
        if (err instanceof EngineError) {
          results = items.map(() => failed(err.code, err.message));
        } else {
          const exhausted = items.filter((i) => this.countAttempt(i.msg) >= this.opts.config.DLQ_MAX_ATTEMPTS);
          if (exhausted.length === 0) throw err;
          const error = `inference failed ${this.opts.config.DLQ_MAX_ATTEMPTS} times: ${(err as Error).message}`;
          await this.producer.send(this.topics.deadLetter(this.opts.capability), exhausted.map((i) => this.deadLetter(i.msg, error, this.opts.config.DLQ_MAX_ATTEMPTS)));
          results = items.map(() => failed('INFERENCE_FAILED', error));
        }
      }
    }
    this.log.debug({ model, size: items.length, correlationIds: items.map((i) => i.msg.headers[H.correlationId]) }, 'micro-batch done');
    const published = this.publish(items, results);
    // every item's handler awaits it; this keeps a failed produce from going unhandled
    published.catch(() => undefined);
    this.applyBackpressure();
    return results.map((result) => ({ result, published }));
  }

  private readonly attempts = new Map<string, number>();

  /** Counts a failed attempt of a request event. @returns attempts so far */
  private countAttempt(msg: ConsumedMessage): number {
    const k = `${msg.topic}:${msg.partition}:${msg.offset}`;
    const n = (this.attempts.get(k) ?? 0) + 1;
    if (this.attempts.size > 100_000) this.attempts.clear();
    this.attempts.set(k, n);
    return n;
  }

  private async failureMessage(msg: ConsumedMessage, code: ErrorCode, error: string): Promise<{ message: OutgoingMessage } | null> {
    if (!msg.headers[H.replyTopic]) return null;
    return { message: await this.resultMessage(msg, failed(code, error)) };
  }

  private async resultMessage(msg: ConsumedMessage, result: ItemResult): Promise<OutgoingMessage> {
    const h = msg.headers;
    return {
      partition: h[H.replyPartition] !== undefined ? Number(h[H.replyPartition]) : undefined,
      // keyless: on a reply topic without a named partition, a micro-batch's results
      // then stay together in one record batch (sticky partitioning)
      key: null,
      value: await this.opts.codec.encode(this.resultSchema, result as SchemaValues[ResultSchema]),
      // the correlation id and capability; request-id and item-index only when the request
      // named them (bulk producers match results by them)
      headers: {
        [H.correlationId]: h[H.correlationId] ?? '', [H.capability]: this.opts.capability,
        ...(h[H.requestId] !== undefined ? { [H.requestId]: h[H.requestId]! } : {}),
        ...(h[H.itemIndex] !== undefined ? { [H.itemIndex]: h[H.itemIndex]! } : {}),
      },
    };
  }

  private groupByTopic(entries: Array<{ topic: string; m: OutgoingMessage }>): Array<{ topic: string; messages: OutgoingMessage[] }> {
    const by = new Map<string, OutgoingMessage[]>();
    for (const { topic, m } of entries) {
      const list = by.get(topic);
      if (list) list.push(m); else by.set(topic, [m]);
    }
    return [...by].map(([topic, messages]) => ({ topic, messages }));
  }

  /**
   * Publishes results (to each item's reply topic) and usage in one call: one usage
   * message per API key of the micro-batch, holding a usage event per billable item.
   */
  private async publish(items: Item[], results: ItemResult[]): Promise<void> {
    const entries: Array<{ topic: string; m: OutgoingMessage }> = [];
    const usage = new Map<string, UsageEvent[]>();
    const now = Date.now();
    for (const [i, item] of items.entries()) {
      const r = results[i]!;
      const h = item.msg.headers;
      if (h[H.replyTopic]) entries.push({ topic: h[H.replyTopic]!, m: await this.resultMessage(item.msg, r) });
      // the gateway bills what it delivers; bulk items are billed here, as they are published
      if (r.output && h[H.billing] !== 'at-delivery') {
        const { requestId, itemIndex } = requestOf(item.msg);
        const keyId = h[H.keyId] ?? 'anonymous';
        let events = usage.get(keyId);
        if (!events) usage.set(keyId, events = []);
        events.push({
          eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId,
          capability: AVRO_CAPABILITY[this.opts.capability], model: item.input.model, unit: BILLING_UNIT[this.opts.capability],
          quantity: usageQuantity(this.opts.capability, r.output as Record<string, unknown>), timestampMs: now,
        });
      }
    }
    for (const [keyId, events] of usage) {
      entries.push({ topic: this.topics.usage, m: { key: keyId, value: await this.opts.codec.encode('common/usage', { events }) } });
    }
    if (entries.length > 0) await this.producer.sendBatch(this.groupByTopic(entries));
  }

  /** Stops after in-flight batches are published and committed. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.heartbeat(true).catch(() => undefined);
    await this.consumer?.stop();
    await Promise.all([this.control?.stop(), this.cancels?.stop()]);
    await this.thread?.terminate();
  }

  /**
   * Dies at once, as a crashed process: leaves the group without committing and kills
   * the inference thread. Only the embedded log can do this in-process (tests).
   */
  async crash(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    (this.consumer as unknown as { abort?(): void }).abort?.();
    (this.control as unknown as { abort?(): void }).abort?.();
    (this.cancels as unknown as { abort?(): void }).abort?.();
    await this.thread?.terminate(0);
  }
}
