/**
 * A model worker for one capability: consumes `<prefix>.<capability>.requests`, forms
 * micro-batches per model (under a backlog, several go to the thread in one call: backlog
 * dispatch), runs them in an inference thread, publishes each call's results and usage in
 * one produce call (publisher.ts; a bulk producer's several-item event is billed once it
 * is answered as a whole), and only then lets the consumer commit. Items are skipped when
 * nobody waits for them any more: past their deadline, or cancelled by the gateway whose
 * client went away (cancellations.ts). Events
 * that do not decode, and events of an item that keeps crashing the inference thread
 * alone (a crashed micro-batch runs again in halves to find it), go to the dead-letter
 * topic (dead-letter.ts). Fetching pauses while the queues are nearly full
 * (backpressure.ts). It publishes heartbeats, follows warm-up commands and unloads idle
 * models (models.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { capabilityModule, defaultModelOf, modelsOf, requestSchemaOf, requestsSchemaOf } from '../capabilities/index.ts';
import type { RequestSchema } from '../events/codec.ts';
import type { ItemResult } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { H, MAX_EVENT_ITEMS, topicsFor, type Topics } from '../events/topics.ts';
import { cancelledItems, expiredItems, microBatchSize, queueDepth, stoppedItems } from '../lib/metrics.ts';
import { MODEL_DEFAULTS, type DynamicBatching } from '../models/config.ts';
import { ModelRepository } from '../models/repository.ts';
import type { Batch, Consumer, Producer } from '../transport/types.ts';
import { Backpressure } from './backpressure.ts';
import { MicroBatcher } from './batcher.ts';
import { Cancellations } from './cancellations.ts';
import { AttemptCounter, deadLetter } from './dead-letter.ts';
import { EngineError, runControl, sliceControl, type RunControl } from './engines/types.ts';
import { EventAnswers, type Outcome } from './event-answers.ts';
import { WorkerModels } from './models.ts';
import { workerSettings, type WorkerOptions, type WorkerSettings } from './options.ts';
import { ResultPublisher, foldsUsage, groupByTopic, itemIdOf, requestOf, type Item, type TopicMessages } from './publisher.ts';

export type { WorkerOptions, WorkerSettings } from './options.ts';

/**
 * Micro-batches handed to each inference thread while it runs one (non-continuous
 * batching), once at least a quarter of the usual micro-batch (the largest preferred
 * batch size, else max_batch_size) waits: the next waits in the thread's message queue, so the
 * thread starts it the moment the first ends instead of waiting for the event loop to
 * answer its message and form the next one while it parses requests (issue 17: batch of
 * 64 at 4 clients, embedded, 385 → 445 requests/s; the thread was idle 42 % of the
 * time). Not whatever waits: that split a trickle of single requests into many small
 * micro-batches.
 */
export const QUEUED_AHEAD_PER_THREAD = 1;

/** See the module comment. */
export class CapabilityWorker {
  readonly instanceId: string;
  private readonly topics: Topics;
  private readonly repo: ModelRepository;
  private readonly producer: Producer;
  private readonly publisher: ResultPublisher;
  private readonly cancellations: Cancellations;
  private readonly attempts = new AttemptCounter();
  private readonly backpressure: Backpressure;
  private consumer?: Consumer;
  private control?: Consumer;
  private cancels?: Consumer;
  private models!: WorkerModels;
  private readonly batchers = new Map<string, MicroBatcher<Item, Outcome>>();
  /** micro-batches running now, with their items' cancellation flags (shared with the inference thread) */
  private readonly running = new Set<{ items: Item[]; control: RunControl }>();
  private timers: NodeJS.Timeout[] = [];
  private readonly log: Logger;

  private readonly settings: WorkerSettings;

  /** @throws OptionsError naming a setting that breaks its schema */
  constructor(private readonly opts: WorkerOptions) {
    this.settings = workerSettings(opts.settings);
    this.instanceId = opts.instanceId ?? randomUUID();
    this.topics = topicsFor(this.settings.topicPrefix);
    this.repo = new ModelRepository(this.settings.modelRepository);
    this.producer = opts.transport.producer();
    this.log = opts.logger.child({ service: `worker:${opts.capability}`, instance: this.instanceId });
    this.publisher = new ResultPublisher(opts.capability, opts.codec, this.producer, this.topics.usage, this.settings.outcomeEvents ? this.topics.outcomes : undefined, { deadLetterTopic: this.topics.deadLetter(opts.capability), log: this.log });
    this.cancellations = new Cancellations(opts.codec);
    // an item already running whose request is cancelled is flagged; engines whose items
    // take seconds (the generative ones) stop it and free its sequence
    this.cancellations.onCancel((requestId) => {
      for (const r of this.running) r.items.forEach((item, i) => { if (requestOf(item.msg).requestId === requestId) Atomics.store(r.control.cancelled, i, 1); });
    });
    this.backpressure = new Backpressure(this.log);
  }

  private get requestSchema(): RequestSchema { return requestSchemaOf(this.opts.capability); }

  /**
   * Checks the model repository, then starts consuming; resolves once the first heartbeat
   * is published.
   * @throws ModelConfigError naming the file and the field of an invalid config.json
   */
  async start(): Promise<void> {
    const { transport, capability } = this.opts;
    const s = this.settings;
    const installed = this.repo.check();
    this.log.info({ installed }, 'model repository read');
    this.models = new WorkerModels(capability, this.repo, {
      repository: s.modelRepository, executionProvider: s.executionProvider, intraOpThreads: s.inferenceThreads,
    }, s.modelIdleUnloadMs, (m) => this.batchers.get(m)?.depth ?? 0, this.log);
    const requests = this.topics.requests(capability);
    await transport.ensureTopics([
      { name: requests, partitions: s.partitions },
      { name: this.topics.deadLetter(capability), partitions: 1 },
      { name: this.topics.outcomes, partitions: s.partitions },
      { name: this.topics.workers, partitions: 1, retentionMs: 60_000 },
      { name: this.topics.control, partitions: 1, retentionMs: 3_600_000 },
      { name: this.topics.cancellations, partitions: 1, retentionMs: 600_000 },
    ]);
    this.consumer = transport.consumer({ groupId: `${s.topicPrefix}.workers.${capability}`, topics: [requests], fromBeginning: true, maxInFlightBatches: s.maxInFlightBatches });
    this.control = transport.consumer({ groupId: `${s.topicPrefix}.control.${this.instanceId}`, topics: [this.topics.control], background: true });
    this.cancels = transport.consumer({ groupId: `${s.topicPrefix}.cancellations.${this.instanceId}`, topics: [this.topics.cancellations], background: true });
    // the three groups join at once (each join waits for the group coordinator)
    await Promise.all([
      this.consumer.run((b) => this.handleBatch(b)),
      this.control.run((b) => this.handleWarmups(b)),
      this.cancels.run((b) => this.cancellations.take(b)),
    ]);
    await this.heartbeat();
    this.preloading = this.preload();
    this.timers.push(setInterval(() => void this.heartbeat().catch((err) => this.log.warn({ err }, 'heartbeat failed')), s.heartbeatMs));
    this.timers.push(setInterval(() => void this.models.unloadIdle(), Math.min(60_000, s.modelIdleUnloadMs / 4)));
    for (const t of this.timers) t.unref();
  }

  /** Models of the preload (MODEL_PRELOAD) still loading. */
  private readonly loading = new Set<string>();
  private preloading: Promise<void> = Promise.resolve();

  /**
   * Loads the models of the preload setting that are installed here, one after another
   * (each load takes the CPU), runs the capability's warm-up items on each (its module's
   * `warmupItems`: the first real request then runs as fast as later ones), keeps them
   * loaded, and tells the gateways with a heartbeat after each. A model that fails to load
   * is logged and left for its first request.
   */
  private async preload(): Promise<void> {
    const { preload } = this.settings;
    const wanted = preload === 'all' ? modelsOf(this.opts.capability) : preload === 'default' ? [defaultModelOf(this.opts.capability)] : [];
    const models = wanted.filter((m) => this.models.installed(m));
    for (const m of models) this.loading.add(m);
    for (const m of models) {
      const t0 = Date.now();
      try {
        await this.models.loadPinned(m);
        const warmup = capabilityModule(this.opts.capability).warmupItems?.(m) ?? [];
        if (warmup.length > 0) await this.models.run(m, [...warmup]);
        this.log.info({ model: m, ms: Date.now() - t0 }, 'model preloaded');
      } catch (err) {
        this.log.warn({ err, model: m }, 'preload failed; the model loads on its first request');
      } finally {
        this.loading.delete(m);
      }
      await this.heartbeat().catch(() => undefined);
    }
  }

  /** Models of the preload still loading (empty once it is done). */
  loadingModels(): string[] { return [...this.loading]; }

  /** Settles when the preload is done (every model loaded, or failed and logged). */
  preloaded(): Promise<void> { return this.preloading; }

  /** Items queued in this worker's micro-batchers. */
  get queued(): number {
    let n = 0;
    for (const b of this.batchers.values()) n += b.depth;
    return n;
  }

  /** Loads a model now. @throws EngineError MODEL_NOT_INSTALLED when it is not installed here */
  load(model: string): Promise<void> { return this.models.load(model); }

  /** Publishes which models this worker serves (`<prefix>.workers`). */
  private async heartbeat(stopping = false): Promise<void> {
    const models = this.models.status();
    for (const m of models) queueDepth.set({ model: m.name }, m.queueDepth);
    await this.producer.send(this.topics.workers, [{
      key: this.instanceId,
      value: await this.opts.codec.encode('control/worker-status', {
        instanceId: this.instanceId, capability: this.opts.capability, models, timestampMs: Date.now(), stopping,
      }),
    }]);
  }

  private async handleWarmups(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      try { this.models.warmUp(await this.opts.codec.decode('control/warmup', msg.value)); } catch { /* not a warm-up command */ }
    }
  }

  /** Handles one consumed batch; resolves (and so commits) once every item's result is published. */
  private async handleBatch(batch: Batch): Promise<void> {
    const work: Array<Promise<unknown>> = [];
    const poison: TopicMessages = [];
    for (const msg of batch.messages) {
      // a several-item event (header `items`) or a one-item event
      const claimed = msg.headers[H.items];
      let inputs: Array<Item['input']>;
      try {
        if (claimed === undefined) inputs = [await this.opts.codec.decode(this.requestSchema, msg.value)];
        else {
          inputs = (await this.opts.codec.decode(requestsSchemaOf(this.opts.capability), msg.value)).items;
          if (String(inputs.length) !== claimed) throw new Error(`it holds ${inputs.length} items, its header says ${claimed}`);
          if (inputs.length > MAX_EVENT_ITEMS) throw new Error(`it holds ${inputs.length} items, more than ${MAX_EVENT_ITEMS}`);
        }
      } catch (err) {
        // a poison event: answer it (when it names a reply topic) and park it in the dead-letter topic
        const schema = claimed === undefined ? this.requestSchema : requestsSchemaOf(this.opts.capability);
        const error = `request event does not decode with schema ${schema}: ${(err as Error).message}`;
        this.log.error({ err, offset: msg.offset, partition: msg.partition, correlationId: msg.headers[H.correlationId] }, 'undecodable request event sent to the dead-letter topic');
        const items = claimed === undefined ? undefined : Math.min(MAX_EVENT_ITEMS, Math.max(0, Math.trunc(Number(claimed)) || 0));
        poison.push({ topic: this.topics.deadLetter(this.opts.capability), m: deadLetter(msg, error, 1) }, ...await this.publisher.failureMessage(msg, 'INVALID_REQUEST', error, items));
        continue;
      }
      const deadline = Number(msg.headers[H.deadline] ?? Infinity);
      if (deadline <= Date.now()) { for (const input of inputs) expiredItems.inc({ model: input.model }); continue; }
      if (this.cancellations.has(msg)) { for (const input of inputs) cancelledItems.inc({ model: input.model }); continue; }
      const takenAt = Date.now();
      const items: Item[] = inputs.map((input, i) => ({ msg, input, index: claimed === undefined ? undefined : i, takenAt }));
      const answers = new EventAnswers(items, (item, r) => this.publisher.publish([item], [r]));
      // each run of items of one model to its batcher (a request's items name one model)
      for (let first = 0; first < items.length;) {
        const model = items[first]!.input.model;
        let end = first + 1;
        while (end < items.length && items[end]!.input.model === model) end++;
        await this.batcher(model).enqueueMany(first === 0 && end === items.length ? items : items.slice(first, end), deadline, answers, first);
        first = end;
      }
      // a bulk producer's several-item event is billed as a whole (folded), once every item's result is published
      if (!foldsUsage(msg)) work.push(answers.done);
      else {
        const billed = answers.done.then((results) => this.publisher.publishEventUsage(msg, inputs, results));
        billed.catch(() => undefined); // awaited below, after the last event is queued
        work.push(billed);
      }
      this.applyBackpressure();
    }
    if (poison.length > 0) await this.producer.sendBatch(groupByTopic(poison));
    this.applyBackpressure();
    await Promise.all(work);
  }

  private applyBackpressure(): void {
    let capacity = 0;
    for (const model of this.batchers.keys()) capacity += this.modelConfig(model)?.dynamic_batching.max_queue_size ?? MODEL_DEFAULTS.dynamic_batching.max_queue_size;
    this.backpressure.apply(this.consumer, this.queued, capacity);
  }

  private batcher(model: string): MicroBatcher<Item, Outcome> {
    let b = this.batchers.get(model);
    if (!b) {
      const cfg = this.modelConfig(model);
      const batching: DynamicBatching = cfg?.dynamic_batching ?? MODEL_DEFAULTS.dynamic_batching;
      const instances = cfg?.instance_count ?? 1;
      const maxBatchSize = cfg?.max_batch_size ?? MODEL_DEFAULTS.max_batch_size;
      b = new MicroBatcher<Item, Outcome>(
        batching.continuous
          // continuous batching: one item per call, as many in flight as the backend has slots
          ? { maxBatchSize: 1, maxQueueDelayMs: 0, maxQueueSize: batching.max_queue_size, concurrency: maxBatchSize * instances, ...this.opts.batchPolicy }
          : {
            maxBatchSize,
            maxQueueDelayMs: batching.max_queue_delay_ms,
            maxQueueSize: batching.max_queue_size,
            preferredBatchSizes: cfg?.dynamic_batching.preferred_batch_size,
            concurrency: instances,
            queuedAhead: instances * QUEUED_AHEAD_PER_THREAD,
            backlogMicroBatches: this.settings.backlogMicroBatches,
            ...this.opts.batchPolicy,
          },
        (items) => this.runMicroBatch(model, items),
        // nobody waits for an expired or cancelled item any more: nothing is published for it
        (_item, reason) => {
          (reason === 'expired' ? expiredItems : cancelledItems).inc({ model });
          return { result: failed('DEADLINE_EXCEEDED', `item ${reason} before it ran`), published: Promise.resolve() };
        },
        (item) => this.cancellations.has(item.msg),
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
    // under a backlog the batcher hands over several micro-batches of max_batch_size at once
    const chunk = this.modelConfig(model)?.max_batch_size ?? MODEL_DEFAULTS.max_batch_size;
    for (let s = 0; s < items.length; s += chunk) microBatchSize.observe({ model }, Math.min(chunk, items.length - s));
    let results: ItemResult[];
    let startedAt = Date.now();
    if (!this.models.installed(model)) {
      results = items.map(() => failed('MODEL_NOT_INSTALLED', `model ${model} is not installed`));
    } else {
      const run = { items, control: runControl(items.map((i) => Number(i.msg.headers[H.deadline] ?? Infinity))) };
      this.running.add(run);
      startedAt = Date.now();
      try {
        results = await this.models.run(model, items.map((i) => i.input), run.control, chunk);
      } catch (err) {
        results = await this.afterFailure(err, model, items, run.control, chunk);
      } finally {
        this.running.delete(run);
      }
      for (const r of results) {
        if (r.failure?.code === 'CANCELLED') stoppedItems.inc({ model, reason: 'cancelled' });
        else if (r.failure?.code === 'DEADLINE_EXCEEDED') stoppedItems.inc({ model, reason: 'expired' });
      }
    }
    // the ids are parsed per item: only when they are logged (5 % of the batch route's allocations otherwise)
    if (this.log.isLevelEnabled('debug')) this.log.debug({ model, size: items.length, correlationIds: items.map((i) => { const id = itemIdOf(i); return `${id.requestId}:${id.itemIndex}`; }) }, 'micro-batch done');
    const published = this.publisher.publish(items, results, { startedAt, inferenceMs: Date.now() - startedAt });
    // every item's handler awaits it; this keeps a failed produce from going unhandled
    published.catch(() => undefined);
    this.applyBackpressure();
    return results.map((result) => ({ result, published }));
  }

  /**
   * The answer of items whose run failed. A code from the engine (EngineError) is the
   * items' answer. A crash (the inference thread died: the thread itself answers a backend
   * that throws, see inference-thread.ts) is isolated: a backlog dispatch runs again as its
   * micro-batches, a micro-batch as its halves, down to the single items that crash alone,
   * so one hostile input does not fail, or use up the attempts of, the requests
   * micro-batched with it. Only an item that crashes alone has its attempt counted, for its
   * request event: once the event has been tried DLQ_MAX_ATTEMPTS times it is
   * dead-lettered and the item answered INFERENCE_FAILED; before that the crash is thrown
   * on, so the consumed batch is delivered again (its offsets stay uncommitted). Each crash
   * costs the thread's restart (inference-pool.ts): log2(n) more for one such item in a
   * micro-batch of n.
   * @param control the items' deadlines and cancellation flags, in `items` order
   * @param chunk the model's max_batch_size
   * @throws the crash when the item that crashes alone has attempts left
   */
  private async afterFailure(err: unknown, model: string, items: Item[], control: RunControl, chunk: number): Promise<ItemResult[]> {
    if (err instanceof EngineError) return items.map(() => failed(err.code, err.message));
    if (items.length === 1) {
      const msg = items[0]!.msg;
      const max = this.settings.dlqMaxAttempts;
      if (this.attempts.count(msg) < max) throw err;
      const error = `inference failed ${max} times: ${(err as Error).message}`;
      await this.producer.send(this.topics.deadLetter(this.opts.capability), [deadLetter(msg, error, max)]);
      return [failed('INFERENCE_FAILED', error)];
    }
    const size = items.length > chunk ? chunk : Math.ceil(items.length / 2);
    const results: ItemResult[] = [];
    for (let s = 0; s < items.length; s += size) {
      const part = items.slice(s, s + size);
      const c = sliceControl(control, s, s + part.length);
      try {
        results.push(...await this.models.run(model, part.map((i) => i.input), c));
      } catch (e) {
        results.push(...await this.afterFailure(e, model, part, c, chunk));
      }
    }
    return results;
  }

  /** Stops after in-flight batches are published and committed. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.heartbeat(true).catch(() => undefined);
    await this.consumer?.stop();
    await Promise.all([this.control?.stop(), this.cancels?.stop()]);
    await this.models?.terminate();
  }

  /** A model's config, or null when it is not installed (or its config is invalid, reported at start). */
  private modelConfig(model: string) {
    try { return this.repo.config(model); } catch { return null; }
  }

  /**
   * Stops at once, as a crashed process would: leaves the groups without committing (the
   * items in flight are delivered again elsewhere) and kills the inference thread.
   */
  async abort(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.consumer?.abort();
    this.control?.abort();
    this.cancels?.abort();
    await this.models?.terminate(0);
  }
}
