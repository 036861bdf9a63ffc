/**
 * `npm run models:tiny -- --out DIR`: writes a tiny Llama GGUF (scripts/tiny-llm.ts,
 * random weights, a different seed each) for each generative model of the spec, named
 * `<model>.gguf`, so that `MODEL_WEIGHTS_DIR=DIR npm start` serves them through the
 * normal model folders (config.json `weights`). Their answers are meaningless; they run
 * the real engines on the real runtime for tests and benchmarks.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  if (!values.out) throw new Error('usage: npm run models:tiny -- --out DIR');
  for (const p of writeTinyModels(values.out)) console.log(`wrote ${p}`);
}
