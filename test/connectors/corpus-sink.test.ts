/**
 * The corpus sink's checks before it connects (these runs need no broker).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SINK = fileURLToPath(new URL('../../connectors/corpus-sink.ts', import.meta.url));
/** Runs the sink; the broker and registry addresses lead nowhere. */
const sink = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', SINK, ...args], {
  encoding: 'utf8', timeout: 300_000, env: { ...process.env, SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9', KAFKA_BROKERS: '127.0.0.1:9' },
});

describe('corpus sink', () => {
  it('ends at once when its checkpoint already holds the expected lines (regression: a sink restarted after an earlier run wrote them all waited for batches for ever)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sink-')), 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'eng_Latn.txt'), 'a\nb\nc\n');
    writeFileSync(join(out, '.checkpoint.json'), JSON.stringify({ offsets: { 0: 3 }, sizes: { eng_Latn: 6 }, written: [[0, 3]] }));
    const r = sink(['--job', 'j', '--out', out, '--expect', '3']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/j: complete, 3 texts, all written \(or skipped\) before this run, in 1 label files/);
    expect(readFileSync(join(out, 'eng_Latn.txt'), 'utf8')).toBe('a\nb\nc\n');
  });

  it.each([['0'], ['-1'], ['many'], ['1e9']])('refuses --expect %s', (n) => {
    const r = sink(['--job', 'j', '--out', mkdtempSync(join(tmpdir(), 'sink-')), `--expect=${n}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage:/);
  });
});
