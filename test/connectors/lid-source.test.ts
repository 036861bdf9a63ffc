/**
 * The bulk source refuses bad flags and a checkpoint it did not write, before it connects
 * to anything (exit 2, the reason on stderr): these runs need no broker.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../../connectors/lid-source.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'source-'));
const file = join(dir, 'in.txt');
writeFileSync(file, 'one line\n');
/** Runs the source; the broker address leads nowhere, so a run that got past its checks would fail differently. */
const source = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', SOURCE, '--file', file, ...args], {
  encoding: 'utf8', timeout: 300_000, env: { ...process.env, SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9', KAFKA_BROKERS: '127.0.0.1:9' },
});

describe('bulk source', () => {
  it.each([
    [['--job', 'j', '--batch', '0'], /batch must be >= 1/],
    [['--job', 'j', '--batch', '100001'], /batch must be <= 100000/],
    [['--job', 'j', '--batch', 'many'], /batch must be integer/],
    [['--job', 'j', '--items', '1025'], /items must be <= 1024/],
    [['--job', 'j', '--items', '2.5'], /items must be integer/],
    [['--job', 'j', '--rate=-5'], /rate must be >= 0/],
    [['--job', '../etc'], /usage:/],
  ])('refuses %j', (args, why) => {
    const r = source(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(why);
  });

  it('refuses a checkpoint whose grouping is out of bounds or that is not its own, rather than resume with it', () => {
    writeFileSync(`${file}.bad.source.json`, JSON.stringify({ nextLine: 0, nextSeq: 0, items: 5000, batch: 500 }));
    const r = source(['--job', 'bad']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.source\.json is not a checkpoint of this source .*items must be <= 1024/);
    writeFileSync(`${file}.odd.source.json`, JSON.stringify({ nextLine: -3, nextSeq: 'x' }));
    expect(source(['--job', 'odd']).status).toBe(2);
    writeFileSync(`${file}.junk.source.json`, '{"nextLine": 1, "evil": true}');
    expect(source(['--job', 'junk']).stderr).toMatch(/unknown setting "evil"/);
  });
});
