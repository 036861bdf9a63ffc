/**
 * The event pipeline end to end in embedded mode: crashes, replays and deadlines.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { BACKENDS, type Backend } from '../services/capabilities/index.ts';
import { CapabilityWorker } from '../services/workers/worker.ts';
import { H, topicsFor } from '../services/events/topics.ts';
import { UNTIL_MIN_MS, post, servicesClosedAfterEach, until } from './helpers/service.ts';
import type { ConsumedMessage, Transport } from '../services/transport/types.ts';

const service = servicesClosedAfterEach();

const TEXTS = ['Guten Morgen, wie geht es dir heute?', 'Buenos días, ¿cómo estás hoy?', 'Good morning, how are you today?', 'Bonjour, comment vas-tu aujourd’hui ?'];

/** Every message of a topic from now on, read by a consumer group of the test's own (stopped with the transport). */
async function tap(transport: Transport, topic: string): Promise<ConsumedMessage[]> {
  const seen: ConsumedMessage[] = [];
  await transport.consumer({ groupId: `test-tap-${topic}`, topics: [topic], fromBeginning: true }).run(async (b) => { seen.push(...b.messages); });
  return seen;
}

describe('pipeline', () => {
  it('answers every request when a worker dies mid-batch: its partitions move and uncommitted items are delivered again', async () => {
    const svc = await service({ TOPIC_PARTITIONS: 8 });
    // a second language-ID worker that holds its items for 10 minutes before running them:
    // it dies (abort) while it holds them, however slow the machine
    const slow = new CapabilityWorker({
      capability: 'language-id', transport: svc.transport, codec: svc.codec, settings: { heartbeatMs: 200, partitions: 8 },
      logger: pino({ level: 'silent' }), batchPolicy: { maxQueueDelayMs: 600_000, maxBatchSize: 10_000 },
    });
    await slow.start();
    const requests = Array.from({ length: 48 }, (_, i) => post(svc, '/v1/language-id', { text: TEXTS[i % 4], model: 'lid-lite-608' }));
    await until(() => slow.queued > 0, 5000, 'items queued in the slow worker');
    const held = slow.queued;
    await slow.abort();
    const results = await Promise.all(requests);
    expect(held).toBeGreaterThan(0);
    expect(results.map((r) => r.status)).toEqual(Array(48).fill(200));
    expect(results.map((r) => r.body.language)).toEqual(Array.from({ length: 48 }, (_, i) => ['deu', 'spa', 'eng', 'fra'][i % 4]));
    // each item billed once, even if a result was produced twice
    await until(async () => (await svc.ledger.count()) === 48, 5000, 'ledger');
  });

  it('bills a usage event delivered twice only once', async () => {
    const svc = await service();
    const usageTopic = topicsFor('lmstream').usage;
    // the embedded log drops what every group has committed: a group of the test's own keeps a copy
    const stored = await tap(svc.transport, usageTopic);
    const r = await post(svc, '/v1/language-id/batch', { texts: TEXTS, model: 'lid-lite-608' });
    expect(r.body.usage).toEqual({ texts: 4 });
    // the request's 4 texts are one usage event of quantity 4 (issue 17: folded per request, capability and model)
    await until(async () => (await svc.ledger.count()) === 1, 5000, 'ledger');
    await until(() => stored.length === 1, 5000, 'usage message');
    const events = (await Promise.all(stored.map(async (m) => (await svc.codec.decode('common/usage', m.value)).events))).flat();
    expect(events).toMatchObject([{ itemIndex: 0, quantity: 4, eventId: expect.stringMatching(/:0$/) }]);
    // replay every usage message
    await svc.transport.producer().send(usageTopic, stored.map((m) => ({ key: m.key, value: m.value, headers: m.headers })));
    await new Promise((res) => setTimeout(res, 300));
    expect(await svc.ledger.count()).toBe(1);
    const [row] = await svc.ledger.report();
    expect(row).toMatchObject({ capability: 'language_id', model: 'lid-lite-608', unit: 'texts', quantity: 4, requests: 1 });
  });

  it('bills a bulk several-item event as one usage event per model once all its items are published, and a redelivered event once (issue 17)', async () => {
    const svc = await service();
    const topics = topicsFor('lmstream');
    // 300 items of lid-lite-608 (max_batch_size 256: two micro-batches at least) and 2 of a model not installed
    const inputs = [
      ...Array.from({ length: 300 }, (_, i) => ({ text: `${TEXTS[i % 4]} ${i}`, model: 'lid-lite-608', mode: 'coverage' as const, topK: 1, candidates: null, echoText: true })),
      ...[0, 1].map(() => ({ text: TEXTS[0]!, model: 'lid-missing', mode: 'coverage' as const, topK: 1, candidates: null, echoText: true })),
    ];
    const value = await svc.codec.encode('language-id/requests', { items: inputs });
    const stored = await tap(svc.transport, topics.usage);
    const send = async () => {
      const answered = svc.gateway.correlator.expectItems('job7:100', inputs.length, Date.now() + 600_000);
      await svc.transport.producer().send(topics.requests('language-id'), [{ key: 'job7:100', value, headers: {
        [H.correlationId]: 'job7:100', [H.replyTopic]: svc.gateway.correlator.replyTopic, [H.replyPartition]: '0', [H.requestId]: 'job7', [H.itemIndex]: '100',
        [H.keyId]: 'bulk:job7', [H.capability]: 'language-id', [H.items]: String(inputs.length),
      } }]);
      return answered;
    };
    const results = await send();
    expect(results.filter((r) => r.output).length).toBe(300);
    expect(results.slice(300).map((r) => r.failure?.code)).toEqual(['MODEL_NOT_INSTALLED', 'MODEL_NOT_INSTALLED']);
    const usage = async () => (await Promise.all(stored.map(async (m) => (await svc.codec.decode('common/usage', m.value)).events))).flat();
    await until(async () => (await usage()).length === 1, 5000, 'folded usage');
    expect(await usage()).toMatchObject([{ eventId: 'job7:100', requestId: 'job7', itemIndex: 100, keyId: 'bulk:job7', model: 'lid-lite-608', quantity: 300 }]);
    // the same event again (a producer's retry, or a redelivery after a crash): the same id, billed once
    await send();
    await until(async () => (await usage()).length === 2, 5000, 'usage of the redelivered event');
    expect(new Set((await usage()).map((e) => e.eventId))).toEqual(new Set(['job7:100']));
    await until(async () => (await svc.ledger.count()) === 1, 5000, 'ledger');
    await new Promise((res) => setTimeout(res, 300));
    expect(await svc.ledger.count()).toBe(1);
    // one usage event for the 300 texts; the report counts each text of a bulk job as a request
    expect(await svc.ledger.report({ keyId: 'bulk:job7' })).toMatchObject([{ model: 'lid-lite-608', unit: 'texts', quantity: 300, requests: 300 }]);
  });

  it("sets aside a bulk item's usage event that does not encode and bills the rest of its micro-batch (regression: the produce failed and the batch came back for ever)", async () => {
    const svc = await service();
    const topics = topicsFor('lmstream');
    const stored = await tap(svc.transport, topics.usage);
    const value = await svc.codec.encode('language-id/request', { text: TEXTS[0]!, model: 'lid-lite-608', mode: 'coverage', topK: 1, candidates: null, echoText: false });
    // a bulk producer's item index that is not a number: its usage event's itemIndex (an Avro int) cannot be encoded
    const event = (id: string, itemIndex: string) => ({ key: null, value, headers: {
      [H.correlationId]: `${id}:0`, [H.replyTopic]: svc.gateway.correlator.replyTopic, [H.replyPartition]: '0', [H.requestId]: id, [H.itemIndex]: itemIndex, [H.keyId]: 'bulk:mixed',
    } });
    // far beyond what one tiny item takes on any machine; the bug answered neither, ever
    const answered = ['bad', 'good'].map((id) => svc.gateway.correlator.expect(`${id}:0`, Date.now() + 120_000));
    await svc.transport.producer().send(topics.requests('language-id'), [event('bad', 'not-a-number'), event('good', '5')]);
    expect((await Promise.all(answered)).map((r) => (r.output as { language: string }).language)).toEqual(['deu', 'deu']);
    const usage = async () => (await Promise.all(stored.map(async (m) => (await svc.codec.decode('common/usage', m.value)).events))).flat();
    await until(async () => (await usage()).length === 1, UNTIL_MIN_MS, 'the good item billed');
    expect(await usage()).toMatchObject([{ eventId: 'good:5', keyId: 'bulk:mixed', quantity: 1 }]);
    const dead = svc.transport.read(topics.deadLetter('language-id'), 0, 0, 10);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.value.toString())).toMatchObject({ requestId: 'bad', keyId: 'bulk:mixed', quantity: 1 });
    expect(dead[0]!.headers).toMatchObject({ [H.source]: topics.usage, error: expect.stringMatching(/usage event does not encode: .*itemIndex/) });
    // the batch was committed: the worker goes on, and the set-aside event is not written again
    const next = svc.gateway.correlator.expect('after:0', Date.now() + 120_000);
    await svc.transport.producer().send(topics.requests('language-id'), [event('after', '6')]);
    expect((await next).output).toBeDefined();
    await until(async () => (await usage()).length === 2, UNTIL_MIN_MS, 'the next item billed');
    expect(svc.transport.read(topics.deadLetter('language-id'), 0, 0, 10)).toHaveLength(1);
  });

  it('when a backlog dispatch crashes its thread, runs it again as micro-batches, then halves, and fails only the item that crashes alone (issue 17)', async () => {
    const crashy = crashyModel();
    try {
      const svc = await service({ MODEL_REPOSITORY: crashy.repo, DLQ_MAX_ATTEMPTS: 1, WORKER_BACKLOG_MICRO_BATCHES: 2 }, { capabilities: ['language-id'] });
      const send = sender(svc);
      // the thread is busy with a slow micro-batch; meanwhile the first 4 items are handed to
      // it ahead, and the other 8 (2 micro-batches of 4) wait, to go together in one backlog
      // dispatch; one of them ends the thread
      const slow = send([['z', ['slow']]]).then((r) => r[0]![0]!);
      await new Promise((r) => setTimeout(r, 100));
      const results = (await send([['a', ['a1', 'a2', 'a3', 'a4']], ['b', ['b1', 'b2', 'b3', 'b4']], ['c', ['c1', 'crash', 'c3', 'c4']]])).flat();
      expect((await slow).output).toBeTruthy();
      // the backlog dispatch, then [c1, crash, c3, c4], then [c1, crash] crashed: only
      // "crash" failed, alone; the 11 others were answered
      expect(results.map((r) => (r.output as { text?: string } | null)?.text ?? r.failure?.code))
        .toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'b4', 'c1', 'INFERENCE_FAILED', 'c3', 'c4']);
      // its event went to the dead-letter topic (DLQ_MAX_ATTEMPTS 1), and only it
      expect(svc.transport.read(topicsFor('lmstream').deadLetter('language-id'), 0, 0, 10).map((m) => m.headers[H.correlationId])).toEqual(['c:0']);
    } finally {
      crashy.remove();
    }
  });

  it('counts a crash against the event of the item that crashes alone, not the events micro-batched with it (hostile input)', async () => {
    const crashy = crashyModel();
    try {
      // one micro-batch of 4 from 2 events; the crash is delivered again once before its
      // event has used up its 2 attempts
      const svc = await service({ MODEL_REPOSITORY: crashy.repo, DLQ_MAX_ATTEMPTS: 2 }, { capabilities: ['language-id'] });
      const results = await sender(svc)([['good', ['g1', 'g2', 'g3']], ['bad', ['crash']]]);
      expect(results[0]!.map((r) => (r.output as { text?: string } | null)?.text)).toEqual(['g1', 'g2', 'g3']);
      expect(results[1]![0]!.failure?.code).toBe('INFERENCE_FAILED');
      expect(results[1]![0]!.failure?.error).toContain('inference failed 2 times');
      expect(svc.transport.read(topicsFor('lmstream').deadLetter('language-id'), 0, 0, 10).map((m) => m.headers[H.correlationId])).toEqual(['bad:0']);
    } finally {
      crashy.remove();
    }
  });

  it('answers 504 when no result arrives before the deadline, and drops and counts a late reply', async () => {
    const svc = await service({ REQUEST_TIMEOUT_MS: 300 }, { capabilities: [] });
    const slow = new CapabilityWorker({
      capability: 'language-id', transport: svc.transport, codec: svc.codec, logger: pino({ level: 'silent' }),
      settings: { heartbeatMs: 200 }, batchPolicy: { maxQueueDelayMs: 1000 },
    });
    await slow.start();
    try {
      await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
      const r = await post(svc, '/v1/language-id', { text: 'hello there my friend', model: 'lid-lite-608' });
      expect(r.status).toBe(504);
      expect(r.body).toMatchObject({ status: 504, error: expect.stringMatching(/no result before the request's deadline/) });
      // a reply for a correlation id nobody waits for
      const before = svc.gateway.correlator.late;
      await svc.transport.producer().send(svc.gateway.correlator.replyTopic, [{
        value: await svc.codec.encode('language-id/result', { output: null, failure: { status: 500, error: 'x' } }),
        headers: { [H.correlationId]: 'gone:0', [H.capability]: 'language-id' },
      }]);
      await until(() => svc.gateway.correlator.late === before + 1, 2000, 'late reply counted');
    } finally { await slow.stop(); }
  });

  it('keeps the error code a worker raised across the log: a model that fails to load is 500 INFERENCE_FAILED, not a code guessed from the status', async () => {
    // a model repository whose lid-lite-608 has its config but a broken ONNX file
    const repo = mkdtempSync(join(tmpdir(), 'broken-repo-'));
    cpSync(join(import.meta.dirname, '..', 'models', 'lid-lite-608'), join(repo, 'lid-lite-608'), { recursive: true });
    writeFileSync(join(repo, 'lid-lite-608', '1', 'model.onnx'), 'not an onnx file');
    const svc = await service({ MODEL_REPOSITORY: repo, DLQ_MAX_ATTEMPTS: 1 }, { capabilities: ['language-id'] });
    await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
    const r = await post(svc, '/v1/language-id', { text: 'hello there my friend', model: 'lid-lite-608' });
    expect(r.status).toBe(500);
    // the cause (onnxruntime's message, with a server path) stays in the worker's log
    expect(r.body).toEqual({ status: 500, code: 'INFERENCE_FAILED', error: "model lid-lite-608 failed to run; the worker's log has the cause" });
  });

  it('answers 503 when no worker serves the capability', async () => {
    const svc = await service({}, { capabilities: [] });
    const r = await post(svc, '/v1/language-id', { text: 'hello there', model: 'lid-lite-608' });
    expect(r).toEqual({ status: 503, body: { error: 'no worker serves language-id; model lid-lite-608 is unavailable', status: 503, code: 'NO_WORKER' } });
  });

  it('answers a request event that does not decode with a 400 result and parks it in the dead-letter topic', async () => {
    const svc = await service();
    const topics = topicsFor('lmstream');
    const wait = svc.gateway.correlator.expect('poison:0', Date.now() + 600_000);
    await svc.transport.producer().send(topics.requests('language-id'), [{
      key: 'poison:0', value: Buffer.from('not avro at all'),
      headers: { [H.correlationId]: 'poison:0', [H.replyTopic]: svc.gateway.correlator.replyTopic, [H.replyPartition]: '0', [H.capability]: 'language-id', [H.deadline]: String(Date.now() + 600_000) },
    }]);
    const result = await wait;
    expect(result.failure).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    const [dead] = svc.transport.read(topics.deadLetter('language-id'), 0, 0, 10);
    expect(dead!.value.toString()).toBe('not avro at all');
    expect(dead!.headers).toMatchObject({ [H.correlationId]: 'poison:0', [H.attempts]: '1', error: expect.stringMatching(/does not decode/) });
    // the worker goes on serving
    expect((await post(svc, '/v1/language-id', { text: 'Good morning, how are you today?', model: 'lid-lite-608' })).body.language).toBe('eng');
  });

  it('answers every item of a several-item request event that does not hold what its header says with a 400, parks it, and runs a good one item by item (issue 17)', async () => {
    const svc = await service();
    const topics = topicsFor('lmstream');
    const headers = (id: string, items: string) => ({ [H.correlationId]: id, [H.replyTopic]: svc.gateway.correlator.replyTopic, [H.replyPartition]: '0', [H.deadline]: String(Date.now() + 600_000), [H.items]: items });
    const item = (text: string) => ({ text, model: 'lid-lite-608', mode: 'traffic' as const, topK: 1, candidates: null });
    const two = await svc.codec.encode('language-id/requests', { items: [item('Good morning, how are you today?'), item('Guten Morgen, wie geht es dir heute?')] });
    const bad = svc.gateway.correlator.expectItems('liar:0', 3, Date.now() + 600_000);
    const good = svc.gateway.correlator.expectItems('good:0', 2, Date.now() + 600_000);
    await svc.transport.producer().send(topics.requests('language-id'), [
      { key: null, value: two, headers: headers('liar:0', '3') },
      { key: null, value: two, headers: headers('good:0', '2') },
    ]);
    expect((await bad).map((r) => r.failure?.code)).toEqual(['INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST']);
    expect((await good).map((r) => (r.output as { language: string }).language)).toEqual(['eng', 'deu']);
    const [dead] = svc.transport.read(topics.deadLetter('language-id'), 0, 0, 10);
    expect(dead!.headers).toMatchObject({ [H.correlationId]: 'liar:0', [H.items]: '3', error: expect.stringMatching(/holds 2 items, its header says 3/) });
  });
});

/**
 * A model repository with one model, `crashy` (max_batch_size 4), whose backend ends its
 * inference thread on the text "crash" and holds it 300 ms on "slow"; each output echoes
 * its text. `remove()` unregisters the backend.
 */
function crashyModel(): { repo: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'crashy-'));
  writeFileSync(join(dir, 'engine.mjs'), `
    export function createEngine() {
      return {
        async load() {}, async unload() {},
        async run(model, inputs) {
          if (inputs.some((i) => i.text === 'crash')) process.exit(3); // the inference thread dies
          if (inputs.some((i) => i.text === 'slow')) { const t = Date.now(); while (Date.now() - t < 300) { /* busy */ } }
          return inputs.map((i) => ({ output: { language: 'eng', script: 'Latn', label: 'eng_Latn', languageName: 'English', confidence: 1, top: [], warnings: [], text: i.text }, failure: null }));
        },
      };
    }`);
  (BACKENDS as Record<string, Backend>)['test-crashy'] = { capability: 'language-id', module: pathToFileURL(join(dir, 'engine.mjs')) };
  const repo = join(dir, 'models');
  mkdirSync(join(repo, 'crashy', '1'), { recursive: true });
  writeFileSync(join(repo, 'crashy', '1', 'model.onnx'), 'unused');
  writeFileSync(join(repo, 'crashy', 'config.json'), JSON.stringify({ name: 'crashy', capability: 'language-id', backend: 'test-crashy', max_batch_size: 4, dynamic_batching: { max_queue_delay_ms: 0, max_queue_size: 100 },
    inputs: { ids: { data_type: 'int32', dims: ['N'] } }, outputs: { probs: { data_type: 'float32', dims: ['N'] } } }));
  return { repo, remove: () => { delete (BACKENDS as Record<string, Backend>)['test-crashy']; } };
}

/** Sends several-item request events for `crashy` in one produce call (one consumed batch); resolves with each event's results. */
function sender(svc: Awaited<ReturnType<typeof service>>) {
  const item = (text: string) => ({ text, model: 'crashy', mode: 'coverage' as const, topK: 1, candidates: null, echoText: true });
  return async (events: Array<[string, string[]]>) => {
    const answered = events.map(([id, texts]) => svc.gateway.correlator.expectItems(`${id}:0`, texts.length, Date.now() + 600_000));
    await svc.transport.producer().send(topicsFor('lmstream').requests('language-id'), await Promise.all(events.map(async ([id, texts]) => ({
      key: null, value: await svc.codec.encode('language-id/requests', { items: texts.map(item) }), headers: {
        [H.correlationId]: `${id}:0`, [H.replyTopic]: svc.gateway.correlator.replyTopic, [H.replyPartition]: '0', [H.capability]: 'language-id', [H.items]: String(texts.length),
      },
    }))));
    return Promise.all(answered);
  };
}
