/**
 * Bulk source: streams a text file (one text per line) or a JSONL file (one object per
 * line, text in `--field`) of any size into the language-ID request topic, asking for
 * the text back in each result, with the corpus job's reply topic. Progress (lines,
 * lines/s, % of the file) goes to stderr. Resumable: after each acknowledged produce it
 * records the next line in `<file>.<job>.source.json`; a restart continues there (a
 * line sent twice is written once by the sink). Each sent text is numbered without gaps
 * (blank lines are skipped and not numbered): the `item-index` header the sink uses.
 *
 * `--rate N` caps the lines sent per second, so a job does not run further ahead of the
 * workers than the request topic's retention allows.
 *
 * `npm run connector:source -- --file corpus.txt --job web1 [--jsonl --field text]
 *   [--model lid-neural-608] [--mode coverage] [--batch 500] [--rate N]`
 */
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { H } from '../services/events/topics.ts';
import { connect, corpusTopic, topicsFor } from './common.ts';

const { values: a } = parseArgs({ options: {
  file: { type: 'string' }, job: { type: 'string' }, jsonl: { type: 'boolean', default: false }, field: { type: 'string', default: 'text' },
  model: { type: 'string', default: 'lid-neural-608' }, mode: { type: 'string', default: 'coverage' }, batch: { type: 'string', default: '500' },
  rate: { type: 'string' },
} });
if (!a.file || !a.job || !/^[A-Za-z0-9._-]+$/.test(a.job) || (a.mode !== 'coverage' && a.mode !== 'traffic')) {
  console.error('usage: npm run connector:source -- --file FILE --job NAME [--jsonl --field text] [--model M] [--mode coverage|traffic] [--batch N]');
  process.exit(2);
}
const { config, transport, codec, logger } = await connect();
const topics = topicsFor(config.TOPIC_PREFIX);
const replyTopic = corpusTopic(config.TOPIC_PREFIX, a.job);
await transport.ensureTopics([{ name: replyTopic, partitions: config.TOPIC_PARTITIONS }]);
const producer = transport.producer();
const checkpointFile = `${a.file}.${a.job}.source.json`;
const start = existsSync(checkpointFile) ? (JSON.parse(readFileSync(checkpointFile, 'utf8')) as { nextLine: number; nextSeq: number }) : { nextLine: 0, nextSeq: 0 };
const startLine = start.nextLine;
let seq = start.nextSeq;
const size = statSync(a.file).size;
const batchSize = Number(a.batch);
let lineNo = -1;
let sent = 0;
let bytes = 0;
let pending: Array<{ line: number; seq: number; text: string }> = [];
const t0 = Date.now();
const progress = setInterval(() => {
  const s = (Date.now() - t0) / 1000;
  process.stderr.write(`\r${a.job}: line ${lineNo + 1}, sent ${sent} (${Math.round(sent / s)} lines/s), ${((100 * bytes) / Math.max(1, size)).toFixed(1)}% of ${a.file}   `);
}, 1000);

async function flush(): Promise<void> {
  if (pending.length === 0) return;
  const batch = pending;
  pending = [];
  const messages = await Promise.all(batch.map(async ({ seq: n, text }) => ({
    key: `${a.job}:${n}`,
    value: await codec.encode('language-id/request', { text, model: a.model!, mode: a.mode as 'coverage' | 'traffic', topK: 3, candidates: null, echoText: true }),
    headers: {
      [H.correlationId]: `${a.job}:${n}`, [H.replyTopic]: replyTopic, [H.requestId]: a.job!, [H.itemIndex]: String(n),
      [H.keyId]: `bulk:${a.job}`, [H.model]: a.model!, [H.capability]: 'language-id',
    },
  })));
  await producer.send(topics.requests('language-id'), messages);
  sent += batch.length;
  const last = batch[batch.length - 1]!;
  writeFileSync(`${checkpointFile}.tmp`, JSON.stringify({ nextLine: last.line + 1, nextSeq: last.seq + 1 }));
  renameSync(`${checkpointFile}.tmp`, checkpointFile);
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
    if (a.rate) { const ahead = (sent / Number(a.rate)) * 1000 - (Date.now() - t0); if (ahead > 0) await new Promise((r) => setTimeout(r, ahead)); }
  }
}
await flush();
clearInterval(progress);
process.stderr.write(`\n${a.job}: sent ${sent} lines from line ${startLine} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
writeFileSync(`${checkpointFile}.tmp`, JSON.stringify({ nextLine: lineNo + 1, nextSeq: seq, done: true }));
renameSync(`${checkpointFile}.tmp`, checkpointFile);
await transport.close();
