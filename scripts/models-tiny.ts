/**
 * `npm run models:tiny -- --out DIR`: writes a tiny Llama GGUF (scripts/tiny-llm.ts,
 * random weights, a different seed each) for each generative model of the spec, named
 * `<model>.gguf`, so that `MODEL_WEIGHTS_DIR=DIR npm start` serves them through the
 * normal model folders (config.json `weights`). Their answers are meaningless; they run
 * the real engines on the real runtime for tests and benchmarks.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tinyLlm } from './tiny-llm.ts';

/** The generative models of the spec's models table, with the seed of each tiny model. */
export const TINY_MODELS: Readonly<Record<string, number>> = {
  'purplemist-flash-1.0': 11,
  'mist-extract-1.0': 12,
  'mist-extract-flash-1.0': 13,
  'mist-qg-1.5b': 14,
};

/**
 * Writes the tiny models into a folder.
 * @returns the paths written
 */
export function writeTinyModels(out: string): string[] {
  mkdirSync(out, { recursive: true });
  return Object.entries(TINY_MODELS).map(([name, seed]) => {
    const path = join(out, `${name}.gguf`);
    writeFileSync(path, tinyLlm(seed));
    return path;
  });
}

/**
 * A model repository in a new temporary folder: the folders of `models` linked, and those
 * named in `edits` copied with their config.json fields replaced (e.g. shorter answers,
 * so that tiny random models, which write each string to its limit, finish sooner).
 * @returns its folder (give it as MODEL_REPOSITORY); the caller removes it
 */
export function repositoryWith(models: string, edits: Record<string, Record<string, unknown>>): string {
  const root = mkdtempSync(join(tmpdir(), 'lmstream-repo-'));
  for (const name of readdirSync(models)) {
    if (!edits[name]) { symlinkSync(join(models, name), join(root, name), 'dir'); continue; }
    mkdirSync(join(root, name));
    const cfg = JSON.parse(readFileSync(join(models, name, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, name, 'config.json'), JSON.stringify({ ...cfg, ...edits[name] }));
  }
  return root;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  if (!values.out) throw new Error('usage: npm run models:tiny -- --out DIR');
  for (const p of writeTinyModels(values.out)) console.log(`wrote ${p}`);
}
