/**
 * The word-level half of the diacnet models (issue 13): a lexicon of the marked forms the
 * training text writes for each word, with a word bigram language model over them, that
 * rescores the character network's choices word by word (Viterbi over the candidate forms
 * of each word of a text). The character network answers every letter; the lexicon
 * proposes, for a word, the forms the training text attests for its letters (lower case,
 * marks stripped), and the decoder picks, for the whole text, the sequence of forms with
 * the best sum of `charWeight` × the network's log probability of the form's marks and
 * the language model's log probability of the form after the previous word's form. The
 * network's own best form is always a candidate, so a word the lexicon lacks is restored
 * by the network alone. The idea of lexicon candidates with an n-gram language model goes
 * back to Yarowsky 1994 ("A comparison of corpus-based techniques for restoring accents in
 * Spanish and French text") and Simard 1998; Náplava et al. 2018 rescore a character
 * network's output with a word language model the same way.
 *
 * Language model: interpolated absolute discounting (Ney, Essen & Kneser 1994) of word
 * trigrams over bigrams over additively smoothed unigrams (`order` 2 stops at bigrams);
 * the words before a text's first word are `<s>`, and `</s>` is predicted after the last
 * (so that each context's probabilities sum to one); punctuation does not break the chain.
 * Bigrams and trigrams seen once are left out of the file (their mass goes to the lower
 * order through the follower counts, which are taken before pruning). With trigrams the
 * decoder is a second-order Viterbi (a state is a pair of forms).
 *
 * File (`word_lm.file` in config.json, gzip TSV, UTF-8, one record per line):
 * `N <lang> <tokens> <types>`, `U <lang> <form> <count> <followers>` (followers: distinct
 * next forms), `B <lang> <previous form> <form> <count> <followers>`, `T <lang> <form>
 * <form> <form> <count>`; forms are lower case NFC.
 */
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { formOf, units, type Unit } from './marks.ts';
import { bestClass, classOf, formFrom, type Slot } from './tagger.ts';

/** Settings of the word-level rescoring (config.json `word_lm`). */
export interface WordLmSpec {
  /** the gzip TSV file, relative to the model folder */
  file: string;
  /** weight of the character network's log probability against the language model's (natural logs), per language (ISO 639-3) with `default` for the others; chosen on a development split (scripts/tune-word-lm.ts) */
  char_weight: Readonly<Record<string, number>>;
  /** absolute discount of the bigram counts (Ney et al. 1994), 0 < D < 1 */
  discount: number;
  /** additive smoothing of unigram counts; an unseen form counts this much */
  unigram_add: number;
  /** most lexicon forms considered per word (by count), besides the network's own */
  max_candidates: number;
  /** 2: bigrams; 3: trigrams too (default 2) */
  order?: number;
}

/** The start-of-text context. */
export const START = '<s>';
/** The end of a text, predicted after its last word (so that each context's probabilities sum to one). */
export const END = '</s>';
/** Log probability of a mark the network does not allow for a letter (a lexicon form the class space lacks). */
const LOG_FLOOR = Math.log(1e-9);

interface LangLm { tokens: number; types: number; forms: Map<string, { count: number; followers: number }>; byKey: Map<string, string[]>; bigrams: Map<string, { count: number; followers: number }>; trigrams: Map<string, number>; }

/** A lexicon with its bigram language model, per language (ISO 639-3). */
export class WordLm {
  private readonly langs = new Map<string, LangLm>();

  constructor(readonly spec: WordLmSpec) {}

  /**
   * Reads a model file (format in the module comment).
   * @throws Error when a line is malformed
   */
  static load(path: string, spec: WordLmSpec): WordLm {
    const lm = new WordLm(spec);
    lm.parse(gunzipSync(readFileSync(path)).toString('utf8'));
    return lm;
  }

  /** Adds the records of a file's text. */
  parse(text: string): void {
    for (const line of text.split('\n')) {
      if (!line) continue;
      const f = line.split('\t');
      const lang = f[1]!;
      let l = this.langs.get(lang);
      if (!l) this.langs.set(lang, (l = { tokens: 0, types: 0, forms: new Map(), byKey: new Map(), bigrams: new Map(), trigrams: new Map() }));
      if (f[0] === 'N') { l.tokens = Number(f[2]); l.types = Number(f[3]); }
      else if (f[0] === 'U') {
        l.forms.set(f[2]!, { count: Number(f[3]), followers: Number(f[4]) });
        if (f[2] === START || f[2] === END) continue;
        const k = keyOf(f[2]!);
        const list = l.byKey.get(k);
        if (list) list.push(f[2]!); else l.byKey.set(k, [f[2]!]);
      } else if (f[0] === 'B') l.bigrams.set(`${f[2]}\t${f[3]}`, { count: Number(f[4]), followers: Number(f[5] ?? 0) });
      else if (f[0] === 'T') { if ((this.spec.order ?? 2) >= 3) l.trigrams.set(`${f[2]}\t${f[3]}\t${f[4]}`, Number(f[5])); }
      else throw new Error(`word LM: bad record ${JSON.stringify(line.slice(0, 80))}`);
    }
    // most frequent forms first
    for (const l of this.langs.values()) for (const list of l.byKey.values()) list.sort((a, b) => l.forms.get(b)!.count - l.forms.get(a)!.count);
  }

  /** Whether the model has a lexicon for the language. */
  has(language: string): boolean { return this.langs.has(language); }

  /** The attested forms of a key (lower case, marks stripped), most frequent first. */
  formsOf(language: string, key: string): readonly string[] { return this.langs.get(language)?.byKey.get(key) ?? []; }

  /** The model's order (2 or 3). */
  get order(): number { return Math.min(3, Math.max(2, this.spec.order ?? 2)); }

  /**
   * Natural log of P(form | prev2 prev) (module comment); `prev2` null for a bigram
   * model. Unknown languages give 0.
   */
  logProb(language: string, prev2: string | null, prev: string, form: string): number {
    const l = this.langs.get(language);
    if (!l) return 0;
    const u = l.forms.get(form);
    const D = this.spec.discount;
    let p = ((u?.count ?? 0) + this.spec.unigram_add) / (l.tokens + this.spec.unigram_add * (l.types + 1));
    const v = l.forms.get(prev);
    if (v && v.count > 0) {
      const c = l.bigrams.get(`${prev}\t${form}`)?.count ?? 0;
      p = Math.max(c - D, 0) / v.count + (D * v.followers / v.count) * p;
    }
    if (prev2 !== null) {
      const ctx = l.bigrams.get(`${prev2}\t${prev}`);
      if (ctx && ctx.count > 0 && ctx.followers > 0) {
        const c = l.trigrams.get(`${prev2}\t${prev}\t${form}`) ?? 0;
        p = Math.max(c - D, 0) / ctx.count + (D * ctx.followers / ctx.count) * p;
      }
    }
    return Math.log(p);
  }
}

/** A word's lexicon key: lower case, marks stripped (its units' bases). */
export const keyOf = (form: string): string => units(form).map((u) => u.base).join('');

/** Class id by class string, per class list (a model's list is built once, not per text). */
const CLASS_INDEX = new WeakMap<readonly string[], ReadonlyMap<string, number>>();
function indexOf(classes: readonly string[]): ReadonlyMap<string, number> {
  let m = CLASS_INDEX.get(classes);
  if (!m) CLASS_INDEX.set(classes, (m = new Map(classes.map((c, i) => [c, i]))));
  return m;
}

/** A word of a text: units [from, to) and the slots inside it, [s0, s1). */
interface Word { from: number; to: number; s0: number; s1: number; }

/** The words (maximal runs of letter units) of a text that hold at least one slot. */
function wordsWithSlots(us: readonly Unit[], slots: readonly Slot[]): Word[] {
  const out: Word[] = [];
  let s = 0;
  for (let i = 0; i < us.length;) {
    if (!us[i]!.letter) { i++; continue; }
    let j = i;
    while (j < us.length && us[j]!.letter) j++;
    while (s < slots.length && slots[s]!.unit < i) s++;
    let e = s;
    while (e < slots.length && slots[e]!.unit < j) e++;
    if (e > s) out.push({ from: i, to: j, s0: s, s1: e });
    s = e;
    i = j;
  }
  return out;
}

/**
 * The class of every slot of a text after word-level rescoring: per word, the candidate
 * forms (the network's best, and the lexicon's forms of the word's key), scored by
 * `char_weight` × the network's log probability plus the language model (trigram, or
 * bigram with `order` 2), best path by Viterbi. A letter the caller typed with marks that the network does not reject
 * (probability ≥ `keepTypedBelow`) restricts the word's candidates to forms that keep it.
 * @param probs per slot, the probability of every class (row k of slot k, `classes.length` long)
 * @param classes the class strings, by id
 * @returns the chosen class id per slot
 */
export function decodeText(lm: WordLm, language: string, us: readonly Unit[], slots: readonly Slot[], probs: ArrayLike<number>, classes: readonly string[], keepTypedBelow: number): Int32Array {
  const C = classes.length;
  const classIndex = indexOf(classes);
  // the network's own choice per slot
  const chosen = Int32Array.from(slots, (slot, k) => bestClass(slot, probs, k, C));
  if (!lm.has(language)) return chosen;
  const words = wordsWithSlots(us, slots);
  if (words.length === 0) return chosen;
  const W = lm.spec.char_weight[language] ?? lm.spec.char_weight.default ?? 0.5;

  // per word: candidates as class ids per slot, with their form and char score
  type Cand = { form: string; classes: Int32Array; score: number };
  const lattice: Cand[][] = words.map((w) => {
    const slotAt = new Map<number, number>();
    for (let k = w.s0; k < w.s1; k++) slotAt.set(slots[k]!.unit, k);
    const typedFixed = new Map<number, number>(); // slot → class the caller typed and the network accepts
    for (let k = w.s0; k < w.s1; k++) {
      const u = us[slots[k]!.unit]!;
      if (!u.marked) continue;
      const t = classIndex.get(classOf(formOf(u, language), u.base));
      if (t !== undefined && probs[k * C + t]! >= keepTypedBelow) typedFixed.set(k, t);
    }
    const out: Cand[] = [];
    const seen = new Set<string>();
    const add = (cls: Int32Array, form: string) => {
      if (seen.has(form)) return;
      for (const [k, t] of typedFixed) if (cls[k - w.s0] !== t) return;
      let score = 0;
      for (let k = w.s0; k < w.s1; k++) {
        const c = cls[k - w.s0]!;
        score += c < 0 ? LOG_FLOOR : Math.log(Math.max(probs[k * C + c]!, 1e-9));
      }
      seen.add(form);
      out.push({ form, classes: cls, score: W * score });
    };
    // the network's form (with the typed marks it keeps)
    const own = new Int32Array(w.s1 - w.s0);
    for (let k = w.s0; k < w.s1; k++) own[k - w.s0] = typedFixed.get(k) ?? chosen[k]!;
    const ownForm = formWith(us, w, slots, own, classes, language);
    add(own, ownForm);
    const key = us.slice(w.from, w.to).map((u) => u.base).join('');
    let n = 0;
    for (const form of lm.formsOf(language, key)) {
      if (n >= lm.spec.max_candidates) break;
      const fu = units(form);
      if (fu.length !== w.to - w.from) continue;
      const cls = new Int32Array(w.s1 - w.s0);
      let ok = true;
      for (let i = w.from; i < w.to && ok; i++) {
        const k = slotAt.get(i);
        const f = fu[i - w.from]!;
        if (k === undefined) { ok = f.text === us[i]!.base || f.text === formOf(us[i]!, language); continue; }
        const c = classIndex.get(classOf(f.text, us[i]!.base));
        cls[k - w.s0] = c !== undefined && slots[k]!.candidates.includes(c) ? c : -1;
      }
      if (!ok) continue;
      n++;
      add(cls, form);
    }
    return out.length > 0 ? out : [{ form: ownForm, classes: own, score: 0 }];
  });

  // Viterbi over the words. A state is the pair (candidate of the previous word, candidate
  // of this word); for a bigram model the previous word's candidate only carries the path.
  const trigram = lm.order >= 3;
  type State = { prev: number; cur: number; score: number; back: number };
  let states: State[] = [{ prev: -1, cur: -1, score: 0, back: -1 }];
  const formAt = (w: number, j: number) => (w < 0 || j < 0 ? START : lattice[w]![j]!.form);
  const history: State[][] = [];
  lattice.forEach((cands, w) => {
    const next = new Map<number, State>(); // key: prevIndex * K + cur
    states.forEach((s, si) => {
      const prev = formAt(w - 1, s.cur);
      const prev2 = trigram ? formAt(w - 2, s.prev) : null;
      cands.forEach((c, j) => {
        const v = s.score + lm.logProb(language, prev2, prev, c.form) + c.score;
        const key = trigram ? (s.cur + 1) * cands.length + j : j;
        const old = next.get(key);
        if (!old || v > old.score) next.set(key, { prev: s.cur, cur: j, score: v, back: si });
      });
    });
    history.push(states);
    states = [...next.values()];
  });
  // the end of the text
  const last = lattice.length - 1;
  for (const s of states) s.score += lm.logProb(language, trigram ? formAt(last - 1, s.prev) : null, formAt(last, s.cur), END);
  let end = states.reduce((b, s, i) => (s.score > states[b]!.score ? i : b), 0);
  let cur: State[] = states;
  for (let w = lattice.length - 1; w >= 0; w--) {
    const s = cur[end]!;
    const c = lattice[w]![s.cur]!;
    const word = words[w]!;
    for (let k = word.s0; k < word.s1; k++) { const cls = c.classes[k - word.s0]!; if (cls >= 0) chosen[k] = cls; }
    end = s.back;
    cur = history[w]!;
  }
  return chosen;
}

/** The lower-case form of a word with the given classes at its slots. */
function formWith(us: readonly Unit[], w: Word, slots: readonly Slot[], cls: Int32Array, classes: readonly string[], language: string): string {
  let s = w.s0;
  let out = '';
  for (let i = w.from; i < w.to; i++) {
    const u = us[i]!;
    if (s < w.s1 && slots[s]!.unit === i) {
      out += formFrom(u.base, classes[cls[s - w.s0]!]!);
      s++;
    } else out += formOf(u, language);
  }
  return out.normalize('NFC');
}
