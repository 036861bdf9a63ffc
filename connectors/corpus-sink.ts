/**
 * Bulk sink: reads a corpus job's results (one line's, or several lines' of one request
 * event: `language-id/results`) and appends each text to
 * `<out>/<label>.txt` (label = ISO 639-3 + ISO 15924, e.g. `swh_Latn.txt`).
 *
 * Exactly-once output across crashes: after writing the batches that arrived since its
 * last write (a group commit) it fsyncs the files and
 * atomically rewrites `<out>/.checkpoint.json` (next offset per partition, size of every
 * output file, the line numbers already written as sorted ranges), and only then lets
 * the consumer
 * commit. On start it truncates every file to its checkpointed size (dropping lines
 * written after the last checkpoint), skips results below the checkpointed offsets, and
 * skips line numbers already written (a line the source sent twice).
 *
 * A job is complete when every one of its texts is written (or skipped: a text whose
 * result is a failure is logged and counted, not written). The sink learns how many texts
 * the job has from the end-of-job marker the source writes once it has sent them all
 * (header `job-texts`), or from `--expect N`; it then says `<job>: complete` and exits 0,
 * unless `--keep-running` (a job the source will extend: it keeps reading until stopped).
 *
 * `npm run connector:sink -- --job web1 --out corpus/ [--expect N] [--keep-running]`.
 * It writes `<job>: reading <topic>` to stderr once its consumer group has its partitions.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { H } from '../services/events/topics.ts';
import type { Batch } from '../services/transport/types.ts';
import { connect, corpusTopic } from './common.ts';
import { LineSet } from './line-set.ts';

const { values: a } = parseArgs({ options: { job: { type: 'string' }, out: { type: 'string' }, expect: { type: 'string' }, 'keep-running': { type: 'boolean', default: false } } });
if (!a.job || !a.out || (a.expect !== undefined && !/^[1-9]\d{0,12}$/.test(a.expect))) { console.error('usage: npm run connector:sink -- --job NAME --out DIR [--expect N] [--keep-running]'); process.exit(2); }
mkdirSync(a.out, { recursive: true });

/**
 * Written line numbers as sorted, disjoint, non-adjacent half-open ranges [start, end)
 * (skipped failures included); `texts`: the job's texts, once its end-of-job marker was read.
 */
interface Checkpoint { offsets: Record<string, number>; sizes: Record<string, number>; written: Array<[number, number]>; texts?: number; }
const cpFile = join(a.out, '.checkpoint.json');
const cp: Checkpoint = existsSync(cpFile) ? JSON.parse(readFileSync(cpFile, 'utf8')) : { offsets: {}, sizes: {}, written: [] };
// roll the files back to the checkpoint
for (const f of readdirSync(a.out).filter((f) => f.endsWith('.txt'))) {
  const label = f.slice(0, -4);
  if (cp.sizes[label] === undefined) unlinkSync(join(a.out, f));
  else if (statSync(join(a.out, f)).size > cp.sizes[label]!) truncateSync(join(a.out, f), cp.sizes[label]);
}
const written = new LineSet(cp.written);
let count = 0;
let total = written.size;
let skipped = 0;
/** the job's texts: --expect, else the source's end-of-job marker (kept in the checkpoint) */
let expected = a.expect ? Number(a.expect) : cp.texts ?? Infinity;
const complete = () => !a['keep-running'] && total >= expected;
// an earlier run already wrote them all: no batch will come to say so (regression: a sink
// restarted after the lines were written waited for batches for ever)
if (complete()) {
  // "complete", as a run that writes the last text says (regression: a sink killed after
  // it had written every text said "done" on restart, and the bulk test that kills it
  // part-way failed on a fast machine)
  process.stderr.write(`${a.job}: complete, ${total} texts, all written (or skipped) before this run, in ${Object.keys(cp.sizes).length} label files\n`);
  process.exit(0);
}
const { config, transport, codec, logger } = await connect();
const topic = corpusTopic(config.TOPIC_PREFIX, a.job);
await transport.ensureTopics([{ name: topic, partitions: config.TOPIC_PARTITIONS }]);
const t0 = Date.now();

/** A consumed batch waiting for the next group commit. */
interface Pending { batch: Batch; resolve(): void; }
let pending: Pending[] = [];
let flushing = false;
/** output files, opened once each (append) */
const files = new Map<string, FileHandle>();

/**
 * Group commit: the batches that arrived while the previous flush ran are written
 * together, their files fsynced once and the checkpoint rewritten once (an fsync costs
 * milliseconds; issue 17 measured the sink falling behind with a flush per batch). A
 * flush that fails ends the process: lines may be marked written that are not durable,
 * and a restart rolls back to the checkpoint.
 */
function kick(): void {
  if (flushing || pending.length === 0) return;
  flushing = true;
  const group = pending;
  pending = [];
  flush(group).then(() => {
    for (const p of group) p.resolve();
    flushing = false;
    kick();
  }, (err: unknown) => {
    logger.fatal({ err }, 'writing the corpus failed; restart to resume from the checkpoint');
    process.exit(1);
  });
}

async function flush(group: Pending[]): Promise<void> {
  const byLabel = new Map<string, string[]>();
  for (const { batch } of group) {
    const k = String(batch.partition);
    for (const m of batch.messages) {
      if (m.offset < (cp.offsets[k] ?? 0)) continue;
      // the source's end-of-job marker: how many texts the job has
      const jobTexts = m.headers[H.jobTexts];
      if (jobTexts !== undefined) {
        // a count that is not a whole number of texts is not the source's: left out
        if (/^\d{1,13}$/.test(jobTexts)) {
          cp.texts = Number(jobTexts);
          if (!a.expect) expected = cp.texts;
        } else logger.warn({ offset: m.offset, value: jobTexts.slice(0, 40) }, 'end-of-job marker with a bad job-texts header; left out');
        continue;
      }
      // a result event of one line (its item-index header), or of some lines of a several-line request event (header `items`; item-index is its first line)
      const first = Number(m.headers[H.itemIndex]);
      const entries = m.headers[H.items] === undefined
        ? [{ index: 0, result: await codec.decode('language-id/result', m.value) }]
        : (await codec.decode('language-id/results', m.value)).items;
      for (const { index, result: r } of entries) {
        const line = first + index;
        if (written.has(line)) continue;
        written.add(line);
        if (!r.output || typeof r.output.text !== 'string') {
          // a failed text is done with: counted, so that the job completes, and not written
          logger.warn({ line, failure: r.failure }, 'no result text; skipped');
          skipped++;
          total++;
          continue;
        }
        count++;
        total++;
        const lines = byLabel.get(r.output.label);
        const text = r.output.text.replace(/[\r\n]+/g, ' ');
        if (lines) lines.push(text); else byLabel.set(r.output.label, [text]);
      }
    }
    cp.offsets[k] = Math.max(cp.offsets[k] ?? 0, batch.messages[batch.messages.length - 1]!.offset + 1);
  }
  // the files are written and synced in parallel, off the event loop: batches go on
  // arriving meanwhile and make up the next group
  await Promise.all([...byLabel].map(async ([label, lines]) => {
    let fh = files.get(label);
    if (fh === undefined) files.set(label, fh = await open(join(a.out!, `${label}.txt`), 'a'));
    await fh.write(`${lines.join('\n')}\n`);
    await fh.datasync();
    cp.sizes[label] = (await fh.stat()).size;
  }));
  const tmp = `${cpFile}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.write(JSON.stringify(cp));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, cpFile);
  process.stderr.write(`\r${a.job}: ${total}${expected < Infinity ? ` of ${expected}` : ''} texts in ${Object.keys(cp.sizes).length} label files (${Math.round(count / ((Date.now() - t0) / 1000))} texts/s)   `);
  if (complete()) setImmediate(() => void finish(true));
}

// several batches in flight, so that a group commit finds more than one waiting
const consumer = transport.consumer({ groupId: `${config.TOPIC_PREFIX}.corpus-sink.${a.job}`, topics: [topic], fromBeginning: true, maxInFlightBatches: 8 });
await consumer.run((batch) => new Promise<void>((resolve) => { pending.push({ batch, resolve }); kick(); }));
// for whoever starts the source after the sink (bench/run.ts): its partitions are assigned
void consumer.ready().then(() => process.stderr.write(`${a.job}: reading ${topic}\n`));

let finishing = false;
/** Stops: `done` when the job is complete, else on a signal (a restart resumes). */
async function finish(done = false): Promise<void> {
  if (finishing) return;
  finishing = true;
  // what is written is durable, and the checkpoint (not the group's committed offsets,
  // which are never ahead of it) says where a restart resumes: a consumer that cannot
  // leave its group (a rebalance under way) does not hold the exit longer than 10 s
  const left = await Promise.race([
    consumer.stop().then(() => transport.close()).then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 10_000).unref()),
  ]);
  if (!left) logger.warn('the consumer did not leave its group within 10 s; exiting without it');
  await Promise.all([...files.values()].map((fh) => fh.close()));
  process.stderr.write(done
    ? `\n${a.job}: complete, ${total} texts: ${total - skipped} written in ${Object.keys(cp.sizes).length} label files, ${skipped} skipped (failed) in this run\n`
    : `\n${a.job}: stopped at ${total}${expected < Infinity ? ` of ${expected}` : ''} texts; run again to resume\n`);
  process.exit(0);
}
for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => void finish());
