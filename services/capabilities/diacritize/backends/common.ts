/**
 * What the diacritization backends share: `language: auto` through the project's
 * language-ID model, and the plan of a micro-batch (each text's language, units and the
 * letters with a choice). Runs in an inference thread.
 *
 * Auto: when the language-ID model's first answer is one of the 11 languages, that one;
 * when it is another language with a score of {@link OTHER_LANGUAGE_SCORE} or more, the
 * item fails with 400 naming it; otherwise the best of the 11. Text without letters
 * answers `zxx` (nothing to restore).
 */
import type { DiacritizeOutput, DiacritizeRequest, ItemResult } from '../../../events/contract.ts';
import { failed } from '../../../events/results.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { LoadedModels, type LoadedModel } from '../../../workers/engines/sessions.ts';
import { EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import { createEngine as createLidEngine } from '../../language-id/backends/lid-embedding-bag.ts';
import type { LanguageIdInput } from '../../language-id/backends/lid-embedding-bag.ts';
import type { LidAnswer } from '../../language-id/decode.ts';
import { inCase, stripMarks, units, type Unit } from '../marks.ts';
import { restore, slotsOf, type Slot, type TaggerCandidates } from '../tagger.ts';

/** The 11 languages (ISO 639-3), by the language-ID languages that select each. */
const LID_TO_DIACRITIZE: Readonly<Record<string, string>> = {
  yor: 'yor', ibo: 'ibo', hau: 'hau', vie: 'vie', pol: 'pol', tur: 'tur', por: 'por', spa: 'spa', fra: 'fra', ita: 'ita', arb: 'ara', ara: 'ara',
};
/** English names of languages for messages (ICU data of Node's Intl). */
const ENGLISH_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });
/** A language-ID answer outside the 11 languages refuses the text from this score on. */
export const OTHER_LANGUAGE_SCORE = 0.5;

type LidEngine = Engine<LanguageIdInput, LidAnswer & { text: string | null }>;

/** The language of each `auto` text (or the failure of a text in another language), by index. */
async function detect(lid: LidEngine, lidModel: string, texts: Array<{ i: number; text: string }>): Promise<Map<number, string | ItemResult<DiacritizeOutput>>> {
  const out = new Map<number, string | ItemResult<DiacritizeOutput>>();
  if (texts.length === 0) return out;
  const free = await lid.run(lidModel, texts.map((t) => ({ text: t.text, model: lidModel, mode: 'traffic' as const, topK: 25, candidates: null })));
  const again: Array<{ i: number; text: string }> = [];
  free.forEach((r, k) => {
    const t = texts[k]!;
    if (r.failure) { out.set(t.i, { output: null, failure: r.failure }); return; }
    const first = r.output.top[0];
    if (!first || r.output.label.startsWith('zxx')) { out.set(t.i, 'zxx'); return; }
    const ours = LID_TO_DIACRITIZE[first.language];
    if (ours) { out.set(t.i, ours); return; }
    if (first.score >= OTHER_LANGUAGE_SCORE) {
      out.set(t.i, failed('INVALID_REQUEST', `language=auto: the text is in ${ENGLISH_NAMES.of(first.language) ?? first.language} (${first.language}, score ${first.score}), which diacritization does not support (one of yor, ibo, hau, vie, pol, tur, por, spa, fra, ita, ara)`));
      return;
    }
    again.push(t);
  });
  if (again.length > 0) {
    const only = await lid.run(lidModel, again.map((t) => ({ text: t.text, model: lidModel, mode: 'traffic' as const, topK: 1, candidates: Object.keys(LID_TO_DIACRITIZE) })));
    only.forEach((r, k) => out.set(again[k]!.i, (r.failure ? undefined : LID_TO_DIACRITIZE[r.output.top[0]?.language ?? '']) ?? 'zxx'));
  }
  return out;
}

/** A text of a micro-batch, ready for a model: its language (ISO 639-3, `ara` for both Arabic settings), units and letters with a choice. */
export interface PlannedText { i: number; input: DiacritizeRequest; language: string; us: Unit[]; slots: Slot[]; }

/**
 * Plans a micro-batch: detects the language of `auto` texts, cuts each text into units
 * and finds its letters with a choice.
 * @returns the texts to run, and the failures of texts refused by language detection (by index)
 */
export async function planBatch(inputs: readonly DiacritizeRequest[], candidates: TaggerCandidates, lid: LidEngine, lidModel: string): Promise<{ texts: PlannedText[]; failures: Map<number, ItemResult<DiacritizeOutput>> }> {
  const detected = await detect(lid, lidModel, inputs.flatMap((x, i) => (x.language === 'auto' ? [{ i, text: x.text }] : [])));
  const texts: PlannedText[] = [];
  const failures = new Map<number, ItemResult<DiacritizeOutput>>();
  inputs.forEach((x, i) => {
    let language = x.language === 'ara-nocase' ? 'ara' : x.language;
    if (language === 'auto') {
      const d = detected.get(i)!;
      if (typeof d !== 'string') { failures.set(i, d); return; }
      language = d;
    }
    const us = units(x.text);
    texts.push({ i, input: x, language, us, slots: slotsOf(us, x.text, candidates[language]) });
  });
  return { texts, failures };
}

/**
 * Applies `hints` (word → meaning) to a restored text. A hint whose meaning is the word
 * itself with marks (`{"oko": "ọkọ̀"}`) sets every occurrence of the word to that form,
 * in the case the word is written. A hint given as a meaning would need a gloss lexicon
 * under an open licence; the project has none for any of the 11 languages, so such a hint
 * leaves the model's choice and adds a warning.
 * @returns the text and the warnings
 */
export function applyHints(text: string, hints: Readonly<Record<string, string>> | null, language: string): { text: string; warnings: string[] } {
  const warnings: string[] = [];
  if (!hints) return { text, warnings };
  const forms = new Map<string, string>();
  for (const [word, meaning] of Object.entries(hints)) {
    const key = stripMarks(word).toLowerCase();
    if (stripMarks(meaning).toLowerCase() === key && meaning.trim() !== '') forms.set(key, meaning.normalize('NFC').toLowerCase());
    else warnings.push(`hint for "${word}" not used: it is a meaning, and there is no gloss lexicon for ${language}; give the word with its marks instead`);
  }
  if (forms.size === 0) return { text, warnings };
  const out = text.replace(/[\p{L}\p{M}\u02bc]+/gu, (w) => {
    const form = forms.get(stripMarks(w).toLowerCase());
    if (!form) return w;
    const us = units(w);
    const fu = units(form);
    return us.length === fu.length ? fu.map((f, k) => inCase(f.text, us[k]!.upper, language)).join('') : w;
  });
  return { text: out.normalize('NFC'), warnings };
}

/** Which of the request's options a model family takes (spec: the "Applies to" column). */
export interface FamilyOptions {
  /** `hints` (the diacnet models) */
  hints: boolean;
  /** `min_confidence` (diactag-2.0) */
  minConfidence: boolean;
}

/**
 * A text's result from its letters' class probabilities (row k of `probs` for slot k).
 * Options the family does not take are ignored.
 * @param chosen the class of each slot when a word-level decoder chose it (word-lm.ts)
 */
export function resultOf(t: PlannedText, probs: ArrayLike<number>, classes: readonly string[], family: FamilyOptions, chosen?: Int32Array): ItemResult<DiacritizeOutput> {
  const x = t.input;
  const restored = restore(t.us, t.slots, probs, classes, { language: t.language, minConfidence: family.minConfidence ? x.minConfidence : 0, caseEndings: x.caseEndings && x.language !== 'ara-nocase', chosen });
  const { text, warnings } = family.hints ? applyHints(restored, x.hints ?? null, t.language) : { text: restored, warnings: [] };
  return { output: { text, language: x.language === 'ara-nocase' ? 'ara-nocase' : t.language, characters: Array.from(x.text).length, warnings }, failure: null };
}

/** What a diacritization backend's loaded model gives the shared engine. */
export interface DiacritizeModel extends LoadedModel { classes: string[]; candidates: TaggerCandidates; lidModel: string; }

/**
 * A diacritization engine: loads models with `open`, plans each micro-batch (auto
 * language, units, letters with a choice), scores its letters with `score` and restores
 * each text.
 * @param score per planned text, float32[slots × classes] in the order of its slots
 * @param family which of the request's options the model family takes
 * @param decode per planned text, the class of each slot chosen by a word-level decoder, or undefined for each slot's most probable class;
 *   an EngineError it throws fails that text alone (its code and message), any other error the run
 */
export function diacritizeEngine<M extends DiacritizeModel>(
  ctx: EngineContext,
  open: (repo: ModelRepository, name: string) => Promise<M>,
  score: (m: M, texts: readonly PlannedText[]) => Promise<Float32Array[]>,
  family: FamilyOptions,
  decode?: (m: M, t: PlannedText, probs: Float32Array) => Int32Array | undefined,
): Engine<DiacritizeRequest, DiacritizeOutput> {
  const repo = new ModelRepository(ctx.repository);
  const models = new LoadedModels((name) => open(repo, name));
  const lid = createLidEngine(ctx);
  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs) {
      const m = await models.get(name);
      const { texts, failures } = await planBatch(inputs, m.candidates, lid, m.lidModel);
      const probs = await score(m, texts);
      const results: Array<ItemResult<DiacritizeOutput>> = new Array(inputs.length);
      for (const [i, f] of failures) results[i] = f;
      texts.forEach((t, k) => {
        let chosen: Int32Array | undefined;
        try {
          chosen = decode?.(m, t, probs[k]!);
        } catch (e) {
          // a text whose decoding fails with a code (a damaged language part of the word
          // model) fails alone; the other texts of the micro-batch are answered
          if (!(e instanceof EngineError)) throw e;
          results[t.i] = failed(e.code, `${name}: ${e.message}`);
          return;
        }
        results[t.i] = resultOf(t, probs[k]!, m.classes, family, chosen);
      });
      return results;
    },
  };
}
