/**
 * scripts/diacnet-data.ts `--write-lines` / `--lines`: a machine without the corpora (a GPU
 * machine lent for training) builds the same training arrays from the written lines as from
 * the corpora, byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIACRITICS_SOURCES } from '../../scripts/diacritics-data.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SENTENCES: Record<string, string> = {
  pol: 'Dziękuję bardzo za pomoc, zażółć gęślą jaźń', vie: 'Chúng tôi đi ăn cơm ở nhà hàng', fra: 'Nous sommes allés à la plage en été',
};

function build(args: string[]): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'diacnet-data.ts'), ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`diacnet-data failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

describe('diacnet-data --lines', () => {
  it('builds the same arrays from the written lines (Brotli) as from the corpora', () => {
    const dir = mkdtempSync(join(tmpdir(), 'diacnet-data-'));
    const corpora = join(dir, 'corpora');
    for (const [lang, sources] of Object.entries(DIACRITICS_SOURCES)) {
      sources.forEach((src, k) => {
        const file = src.endsWith('.txt') ? join(corpora, src) : join(corpora, src, 'test.txt');
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, k === 0 && SENTENCES[lang] ? Array.from({ length: 30 }, (_, i) => `${SENTENCES[lang]} ${i}`).join('\n') : '');
      });
    }
    build(['--corpora', corpora, '--out', join(dir, 'a'), '--write-lines', join(dir, 'lines.txt.br')]);
    build(['--lines', join(dir, 'lines.txt.br'), '--out', join(dir, 'b')]);
    const files = readdirSync(join(dir, 'a')).sort();
    expect(files).toEqual(['candmask.u8', 'cands.i32', 'chars.i32', 'featrow.i32', 'feats.u32', 'meta.json', 'seqs.i32', 'targets.i32']);
    for (const f of files) expect(readFileSync(join(dir, 'b', f)).equals(readFileSync(join(dir, 'a', f))), f).toBe(true);
    const meta = JSON.parse(readFileSync(join(dir, 'a', 'meta.json'), 'utf8')) as { sequences: number; units: number };
    expect(meta.sequences).toBeGreaterThan(0);
  });
});
