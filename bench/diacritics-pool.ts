/**
 * The batch-64 speed pass of the diacritization benchmarks (bench/diacritics.ts,
 * bench/diacritics-speed.ts): 64 held-out sentences of 80–120 characters per language,
 * marks stripped, in batches of 64 through a model's own backend.
 */
import { DIACRITICS_SOURCES } from '../scripts/diacritics-data.ts';
import { stripMarks } from '../services/capabilities/diacritize/marks.ts';
import type { DiacritizeOutput, DiacritizeRequest } from '../services/events/contract.ts';
import type { Engine } from '../services/workers/engines/types.ts';

/** Least seconds the timed passes take (after one warm-up pass): long enough for the JIT's optimised code and a few garbage collections, as a worker that serves continuously runs. */
export const MIN_SECONDS = 3;
/** Least timed passes. */
export const MIN_PASSES = 3;

/**
 * The pool: per language (DIACRITICS_SOURCES' order), the first 64 of its held-out lines
 * of 80–120 characters, marks stripped, as requests to `model`.
 * @param heldOut a language's held-out lines (scripts/diacritics-data.ts linesWithRole)
 */
export function speedPool(model: string, heldOut: (language: string) => readonly string[]): DiacritizeRequest[] {
  return Object.keys(DIACRITICS_SOURCES).flatMap((language) => heldOut(language).filter((t) => t.length >= 80 && t.length <= 120).slice(0, 64)
    .map((t): DiacritizeRequest => ({ text: stripMarks(t), model, language, caseEndings: true, hints: null, aligned: true, minConfidence: 0 })));
}

/**
 * Characters per second (code points of the texts) of the pool in batches of 64: one
 * warm-up pass, then passes until {@link MIN_PASSES} and {@link MIN_SECONDS} are both reached.
 */
export async function batchPass(engine: Engine<DiacritizeRequest, DiacritizeOutput>, model: string, pool: readonly DiacritizeRequest[]): Promise<number> {
  const once = async () => {
    let chars = 0;
    for (let i = 0; i < pool.length; i += 64) {
      const batch = pool.slice(i, i + 64);
      await engine.run(model, batch);
      for (const x of batch) chars += Array.from(x.text).length;
    }
    return chars;
  };
  await once();
  let chars = 0; let passes = 0;
  const start = process.hrtime.bigint();
  let s = 0;
  while (passes < MIN_PASSES || s < MIN_SECONDS) {
    chars += await once(); passes++;
    s = Number(process.hrtime.bigint() - start) / 1e9;
  }
  return chars / s;
}
