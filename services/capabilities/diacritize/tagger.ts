/**
 * diactag-2.0's classes and how a text is restored from its per-letter choices (issue 13).
 * A class is what is added to a letter: the sequence of combining marks of its NFD form
 * after the base (`''` = nothing, U+0301 = acute, U+0323 U+0301 = dot below and acute,
 * Arabic harakat as written after the letter), or `=<letter>` for a letter with no
 * decomposition (`=ł`, `=ı`, `=đ`, `=ɓ`, `=ɗ`, `=ƙ`, `=ƴ`). It never changes a letter.
 */
import { BoundedMemo } from '../../lib/bounded-memo.ts';
import { inCase, passThroughSpans, stripMarks, type Unit } from './marks.ts';

/** Per language (ISO 639-3), per base letter: the class ids the letter may take (sorted). */
export type TaggerCandidates = Record<string, Record<string, number[]>>;

/** The class of a lower-case marked form of `base` (see the module comment). */
export function classOf(form: string, base: string): string {
  const d = form.normalize('NFD');
  const db = base.normalize('NFD');
  return d.startsWith(db) ? d.slice(db.length) : `=${form}`;
}

/** Class id by class string, per class list (a model's list is built once, not per text). */
const CLASS_INDEX = new WeakMap<readonly string[], ReadonlyMap<string, number>>();
/** The id of each class string of a model's class list (built once per list). */
export function classIndexOf(classes: readonly string[]): ReadonlyMap<string, number> {
  let m = CLASS_INDEX.get(classes);
  if (!m) CLASS_INDEX.set(classes, (m = new Map(classes.map((c, i) => [c, i]))));
  return m;
}

/** Forms by base and class: a language has a few hundred, and two normalisations per restored letter were 3 % of diactag-2.0's time. */
const FORMS = new BoundedMemo<string>(50_000);

/** The lower-case form of `base` with class `cls` (NFC). */
export function formFrom(base: string, cls: string): string {
  if (cls.startsWith('=')) return cls.slice(1);
  return FORMS.get(`${base}\u0000${cls}`, () => (base.normalize('NFD') + cls).normalize('NFC'));
}

/** A letter the model decides: its unit index and its candidates. */
export interface Slot { unit: number; candidates: readonly number[]; }

/**
 * The slots of a text: letters that have a choice in the language, outside URLs and
 * e-mail addresses.
 */
export function slotsOf(us: readonly Unit[], text: string, candidates: Record<string, number[]> | undefined): Slot[] {
  if (!candidates) return [];
  const spans = passThroughSpans(text.normalize('NFC'));
  const out: Slot[] = [];
  let offset = 0;
  let span = 0; // spans are in text order: the first that does not end before `at`
  for (let i = 0; i < us.length; i++) {
    const u = us[i]!;
    const at = offset;
    offset += u.text.length;
    while (span < spans.length && spans[span]![1] <= at) span++;
    if (!u.letter) continue;
    const list = candidates[u.base];
    if (!list || (span < spans.length && spans[span]![0] <= at)) continue;
    out.push({ unit: i, candidates: list });
  }
  return out;
}

/**
 * A slot's most probable class among its candidates.
 * @param probs class probabilities of the text's slots, `C` per slot
 * @param k the slot's row in `probs`
 * @returns the class id
 */
export function bestClass(slot: Slot, probs: ArrayLike<number>, k: number, C: number): number {
  let best = slot.candidates[0]!; let pBest = -1;
  for (const c of slot.candidates) { const p = probs[k * C + c]!; if (p > pBest) { pBest = p; best = c; } }
  return best;
}

/** How a restored letter is chosen. */
export interface RestoreOptions {
  /** ISO 639-3 (`ara` for both Arabic settings) */
  language: string;
  /** below this probability a letter is left as typed (spec: `min_confidence`) */
  minConfidence: number;
  /** Arabic: false leaves the last letter of each word unvowelled (spec: `case_endings`) */
  caseEndings: boolean;
  /** the class of each slot when a word-level decoder chose it (word-lm.ts); otherwise each slot's most probable class */
  chosen?: Int32Array;
}

/** A letter written with marks is replaced only when the model gives its form less than this probability. */
export const KEEP_TYPED_BELOW = 0.01;

/**
 * The restored text: each slot takes its most probable class (or the class a word-level
 * decoder chose, `o.chosen`), except that a letter the
 * caller wrote with marks keeps them unless the model gives them less than
 * {@link KEEP_TYPED_BELOW}, and a letter whose best class is below `minConfidence` is
 * left as typed. Arabic without case endings: the last letter of each Arabic word loses
 * its harakat. Output NFC.
 * @param probs per slot, the probability of every class (row k of slot k, `classes` long)
 */
export function restore(us: readonly Unit[], slots: readonly Slot[], probs: ArrayLike<number>, classes: readonly string[], o: RestoreOptions): string {
  const out = us.map((u) => u.text);
  const C = classes.length;
  slots.forEach((slot, k) => {
    const u = us[slot.unit]!;
    const best = o.chosen ? o.chosen[k]! : bestClass(slot, probs, k, C);
    const pBest = probs[k * C + best]!;
    if (u.marked) {
      const typed = classOf(u.text.toLowerCase().normalize('NFC'), u.base);
      const t = classes.indexOf(typed);
      if (t < 0 || probs[k * C + t]! >= KEEP_TYPED_BELOW) return;
    }
    if (pBest < o.minConfidence) return;
    out[slot.unit] = inCase(formFrom(u.base, classes[best]!), u.upper, o.language);
  });
  if (o.language === 'ara' && !o.caseEndings) {
    for (let i = 0; i < us.length; i++) {
      const arabicLetter = us[i]!.letter && /\p{Script=Arabic}/u.test(us[i]!.base);
      const nextIsLetter = us[i + 1]?.letter === true;
      if (arabicLetter && !nextIsLetter) out[i] = stripMarks(out[i]!);
    }
  }
  return out.join('').normalize('NFC');
}

/** A word of a text: units [from, to) and the slots inside it, [s0, s1). */
export interface Word { from: number; to: number; s0: number; s1: number; }

/**
 * Spans of units (`[from, to)`, in text order, not overlapping) with the slots inside each,
 * `[s0, s1)` (`s0 === s1`: none), in one pass over both.
 */
export function withSlots<T extends { from: number; to: number }>(spans: Iterable<T>, slots: readonly Slot[]): Array<T & { s0: number; s1: number }> {
  const out: Array<T & { s0: number; s1: number }> = [];
  let s = 0;
  for (const span of spans) {
    while (s < slots.length && slots[s]!.unit < span.from) s++;
    let e = s;
    while (e < slots.length && slots[e]!.unit < span.to) e++;
    out.push({ ...span, s0: s, s1: e });
    s = e;
  }
  return out;
}

/** The words (maximal runs of letter units) of a text that hold at least one slot. */
export function wordsWithSlots(us: readonly Unit[], slots: readonly Slot[]): Word[] {
  const runs: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < us.length;) {
    if (!us[i]!.letter) { i++; continue; }
    let j = i;
    while (j < us.length && us[j]!.letter) j++;
    runs.push({ from: i, to: j });
    i = j;
  }
  return withSlots(runs, slots).filter((w) => w.s1 > w.s0);
}
