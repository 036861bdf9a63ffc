/**
 * Bulk source: streams a text file (one text per line) or a JSONL file (one object per
 * line, text in `--field`) of any size into the language-ID request topic, asking for
 * the text back in each result, with the corpus job's reply topic. Progress (texts sent,
 * texts/s, % of the file) goes to stderr: a bar (cli-progress) on a terminal, a line every
 * 10 s otherwise. Once every text is sent it writes the end-of-job marker to the job's
 * reply topic (header `job-texts`: how many texts the job has), from which the corpus sink
 * knows when the job is complete. Resumable: after each acknowledged produce it
 * records the next line in `<file>.<job>.source.json`; a restart continues there (a
 * line sent twice is written once by the sink). Each sent text is numbered without gaps
 * (blank lines are skipped and not numbered): the `item-index` header the sink uses.
 *
 * Lines travel `--items` to a request event (`language-id/requests`, default 100, at most
 * MAX_EVENT_ITEMS; 1 sends one-item `language-id/request` events): one record, one
 * encoding and one result event per micro-batch for a hundred lines rather than one each
 * (issue 17); the worker still runs, bills and answers each line on its own. The event's
 * `item-index` header is its first line's number.
 *
 * A bulk job is billed per request event (the worker folds an event's usage into one
 * usage event per model), so a resumed job keeps the `--items` and `--batch` it started
 * with (recorded in the checkpoint): lines sent again then form the same events.
 *
 * `--rate N` caps the lines sent per second, so a job does not run further ahead of the
 * workers than the request topic's retention allows.
 *
 * `npm run connector:source -- --file corpus.txt --job web1 [--jsonl --field text]
 *   [--model lid-neural-608] [--mode coverage] [--batch 500] [--items 100] [--rate N]` (bad values,
 * and a checkpoint it did not write, end it with exit code 2 before it connects)
 */
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import cliProgress from 'cli-progress';
import { parseArgs } from 'node:util';
import { H, MAX_EVENT_ITEMS } from '../services/events/topics.ts';
import { resolveSettings, type SettingsSchema } from '../services/lib/options.ts';
import { connect, corpusTopic, topicsFor } from './common.ts';

const { values: a } = parseArgs({ options: {
  file: { type: 'string' }, job: { type: 'string' }, jsonl: { type: 'boolean', default: false }, field: { type: 'string', default: 'text' },
  model: { type: 'string', default: 'lid-neural-608' }, mode: { type: 'string', default: 'coverage' }, batch: { type: 'string', default: '500' },
  rate: { type: 'string' }, items: { type: 'string', default: '100' },
} });
/** Where a job resumes, and how it groups lines into request events. */
interface SourceCheckpoint { nextLine: number; nextSeq: number; items?: number; batch?: number; done?: boolean }
/** The numeric flags: lines a request event, lines a produce call, lines a second (0: unpaced). */
interface Flags { items: number; batch: number; rate: number }
const FLAGS_SCHEMA: SettingsSchema = { type: 'object', additionalProperties: false, properties: {
  items: { type: 'integer', default: 100, minimum: 1, maximum: MAX_EVENT_ITEMS },
  batch: { type: 'integer', default: 500, minimum: 1, maximum: 100_000 },
  rate: { type: 'integer', default: 0, minimum: 0 },
} };
const CHECKPOINT_SCHEMA: SettingsSchema = { type: 'object', additionalProperties: false, properties: {
  nextLine: { type: 'integer', default: 0, minimum: 0 }, nextSeq: { type: 'integer', default: 0, minimum: 0 },
  items: FLAGS_SCHEMA.properties.items!, batch: FLAGS_SCHEMA.properties.batch!, done: { type: 'boolean', default: false },
} };
const usage = `usage: npm run connector:source -- --file FILE --job NAME [--jsonl --field text] [--model M] [--mode coverage|traffic] [--batch 1..100000] [--items 1..${MAX_EVENT_ITEMS}] [--rate N]`;
let flags: Flags;
try {
  flags = resolveSettings<Flags>('bulk source', FLAGS_SCHEMA, { items: Number(a.items), batch: Number(a.batch), rate: a.rate === undefined ? undefined : Number(a.rate) });
} catch (err) {
  console.error(`${(err as Error).message}\n${usage}`);
  process.exit(2);
}
if (!a.file || !a.job || !/^[A-Za-z0-9._-]+$/.test(a.job) || (a.mode !== 'coverage' && a.mode !== 'traffic')) {
  console.error(usage);
  process.exit(2);
}
const checkpointFile = `${a.file}.${a.job}.source.json`;
let start: SourceCheckpoint = { nextLine: 0, nextSeq: 0 };
if (existsSync(checkpointFile)) {
  try {
    start = resolveSettings<SourceCheckpoint>('bulk source checkpoint', CHECKPOINT_SCHEMA, JSON.parse(readFileSync(checkpointFile, 'utf8')) as object);
  } catch (err) {
    console.error(`${checkpointFile} is not a checkpoint of this source (${(err as Error).message}); move it away to start the job again`);
    process.exit(2);
  }
}
let perEvent = flags.items;
let batchSize = flags.batch;
// a resumed job groups lines as it did before: lines sent again after a crash then form
// the same request events, whose folded usage ids bill them once (services/workers/publisher.ts)
const resumedGrouping = start.items !== undefined && start.batch !== undefined && (start.items !== perEvent || start.batch !== batchSize);
if (resumedGrouping) {
  perEvent = start.items!;
  batchSize = start.batch!;
}
const { config, transport, codec, logger } = await connect();
if (resumedGrouping) logger.warn({ items: perEvent, batch: batchSize }, 'resuming with the --items and --batch the job started with');
const topics = topicsFor(config.TOPIC_PREFIX);
const replyTopic = corpusTopic(config.TOPIC_PREFIX, a.job);
await transport.ensureTopics([{ name: replyTopic, partitions: config.TOPIC_PARTITIONS }]);
const producer = transport.producer();
const startLine = start.nextLine;
let seq = start.nextSeq;
const size = statSync(a.file).size;
/** Writes the checkpoint atomically (a temporary file renamed over it), with the job's grouping. */
function saveCheckpoint(at: Pick<SourceCheckpoint, 'nextLine' | 'nextSeq' | 'done'>): void {
  writeFileSync(`${checkpointFile}.tmp`, JSON.stringify({ ...at, items: perEvent, batch: batchSize } satisfies SourceCheckpoint));
  renameSync(`${checkpointFile}.tmp`, checkpointFile);
}
let lineNo = -1;
let sent = 0;
let bytes = 0;
let pending: Array<{ line: number; seq: number; text: string }> = [];
const t0 = Date.now();
const rate = () => Math.round(sent / Math.max(0.001, (Date.now() - t0) / 1000));
// progress by bytes of the file read: a bar on a terminal, a line every 10 s in a log
const bar = process.stderr.isTTY
  ? new cliProgress.SingleBar({ format: `${a.job} [{bar}] {percentage}% | {sent} texts sent | {rate} texts/s | {eta_formatted} left`, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic)
  : null;
bar?.start(Math.max(1, size), 0, { sent: 0, rate: 0 });
const progress = setInterval(() => {
  if (bar) bar.update(bytes, { sent, rate: rate() });
  else process.stderr.write(`${a.job}: ${sent} texts sent (${rate()} texts/s), ${((100 * bytes) / Math.max(1, size)).toFixed(1)}% of ${a.file}\n`);
}, bar ? 200 : 10_000);

async function flush(): Promise<void> {
  if (pending.length === 0) return;
  const batch = pending;
  pending = [];
  const request = (text: string) => ({ text, model: a.model!, mode: a.mode as 'coverage' | 'traffic', topK: 3, candidates: null, echoText: true });
  const messages = [];
  for (let i = 0; i < batch.length; i += perEvent) {
    const lines = batch.slice(i, i + perEvent);
    const first = lines[0]!.seq;
    messages.push({
      key: `${a.job}:${first}`,
      value: lines.length === 1
        ? await codec.encode('language-id/request', request(lines[0]!.text))
        : await codec.encode('language-id/requests', { items: lines.map((l) => request(l.text)) }),
      headers: {
        [H.correlationId]: `${a.job}:${first}`, [H.replyTopic]: replyTopic, [H.requestId]: a.job!, [H.itemIndex]: String(first),
        [H.keyId]: `bulk:${a.job}`, [H.model]: a.model!, [H.capability]: 'language-id',
        ...(lines.length > 1 ? { [H.items]: String(lines.length) } : {}),
      },
    });
  }
  await producer.send(topics.requests('language-id'), messages);
  sent += batch.length;
  const last = batch[batch.length - 1]!;
  saveCheckpoint({ nextLine: last.line + 1, nextSeq: last.seq + 1 });
}

const rl = createInterface({ input: createReadStream(a.file, 'utf8'), crlfDelay: Infinity });
for await (const raw of rl) {
  lineNo++;
  bytes += Buffer.byteLength(raw) + 1;
  if (lineNo < startLine) continue;
  let text = raw;
  if (a.jsonl) {
    try { text = String((JSON.parse(raw) as Record<string, unknown>)[a.field!] ?? ''); } catch { logger.warn({ line: lineNo }, 'not JSON; skipped'); continue; }
  }
  text = text.slice(0, 8000);
  if (text.trim().length === 0) continue;
  pending.push({ line: lineNo, seq: seq++, text });
  if (pending.length >= batchSize) {
    await flush();
    // --rate: wait until the lines sent fit the rate
    if (flags.rate > 0) { const ahead = (sent / flags.rate) * 1000 - (Date.now() - t0); if (ahead > 0) await new Promise((r) => setTimeout(r, ahead)); }
  }
}
await flush();
clearInterval(progress);
bar?.update(size, { sent, rate: rate() });
bar?.stop();
// the end-of-job marker: the job has `seq` texts (numbered 0 .. seq-1 over every run of it)
await producer.send(replyTopic, [{ key: `${a.job}:end`, value: Buffer.alloc(0), headers: { [H.jobTexts]: String(seq), [H.requestId]: a.job! } }]);
process.stderr.write(`${a.job}: sent ${sent} texts from line ${startLine} in ${((Date.now() - t0) / 1000).toFixed(1)} s; the job has ${seq} texts\n`);
saveCheckpoint({ nextLine: lineNo + 1, nextSeq: seq, done: true });
await transport.close();
