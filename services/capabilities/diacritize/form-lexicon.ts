/**
 * diactag-2.0's word lexicon (issue 35): for each word of the training text (lower case,
 * marks stripped), the marked form the text writes most often, its share of the word's
 * occurrences and their number. The tagger decides each letter from a window of context
 * and so writes forms no text has (Yorùbá, Igbo, Hausa, Portuguese and Spanish news came
 * out below simply writing each known word's most frequent form); where the text is
 * nearly unanimous about a word, that form is taken instead: its letters get the form's
 * class with probability `share`, the others share the rest in the tagger's proportions,
 * so `min_confidence` still leaves a doubtful word as typed. Per language, the least share
 * and the least count at which a form is taken are chosen on the news development set
 * (scripts/diactag-lexicon.ts); a language with no setting does not use the lexicon.
 *
 * File (`lexicon.tsv.br`, Brotli): one entry per line, `language<TAB>key<TAB>form<TAB>share<TAB>count`,
 * `share` with three decimals; only entries whose share reaches 0.5 (a form no setting
 * could take is left out).
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { units, type Unit } from './marks.ts';
import { classIndexOf, classOf, wordsWithSlots, type Slot } from './tagger.ts';

/** When a language's lexicon form is taken (config.json `lexicon`). */
export interface FormLexiconSpec {
  /** the file, relative to the model folder */
  file: string;
  /** per language (ISO 639-3), the least share of the word's occurrences the form must have */
  min_share: Readonly<Record<string, number>>;
  /** per language, the least number of occurrences of the word in the training text */
  min_count: Readonly<Record<string, number>>;
  /** per language, log-odds added to the letters as typed of a word the lexicon does not hold (default 0) */
  unknown_plain?: Readonly<Record<string, number>>;
}

/** A lexicon entry: the most frequent form, its share (0.5–1) and the word's occurrences. */
export interface FormEntry { form: string; share: number; count: number }

/** The lexicon of every language, by key. */
export class FormLexicon {
  private readonly parsed = new Map<string, ReadonlyMap<string, FormEntry>>();
  /** languages not used yet: their lines of the file */
  private readonly blocks = new Map<string, string>();

  /**
   * @param entries per language its entries by key, or the file's lines of that language
   *   (parsed on the language's first use, so a process pays only for the languages it serves)
   * @param source the file, for error messages
   */
  constructor(entries: ReadonlyMap<string, ReadonlyMap<string, FormEntry> | string>, private readonly source = 'lexicon') {
    for (const [lang, e] of entries) if (typeof e === 'string') this.blocks.set(lang, e); else this.parsed.set(lang, e);
  }

  /**
   * Reads a lexicon file (module comment): decompressed and cut by language now, each
   * language's lines parsed on its first use (all of diactag-2.0's at once took about 1 s).
   * @throws Error when the file is missing (a line that is not an entry: on its language's first use)
   */
  static load(path: string): FormLexicon {
    const text = brotliDecompressSync(readFileSync(path)).toString('utf8');
    const blocks = new Map<string, string>();
    let start = 0;
    while (start < text.length) {
      const lang = text.slice(start, text.indexOf('\t', start));
      // the lines of a language are consecutive: its block ends where the next language's first line starts
      let end = start;
      for (;;) {
        const nl = text.indexOf('\n', end);
        end = nl < 0 ? text.length : nl + 1;
        if (end >= text.length || !text.startsWith(`${lang}\t`, end)) break;
      }
      blocks.set(lang, (blocks.get(lang) ?? '') + text.slice(start, end));
      start = end;
    }
    return new FormLexicon(blocks, path);
  }

  /** The entries of a language by key (empty when the lexicon has none). @throws Error when a line of its part is not an entry */
  language(lang: string): ReadonlyMap<string, FormEntry> {
    let m = this.parsed.get(lang);
    if (m) return m;
    const out = new Map<string, FormEntry>();
    const block = this.blocks.get(lang) ?? '';
    let line = 0;
    for (const row of block.split('\n')) {
      line++;
      if (row === '') continue;
      const [, key, form, share, count] = row.split('\t');
      if (count === undefined) throw new Error(`${this.source}: line ${line} of ${lang}: not a lexicon entry`);
      out.set(key!, { form: form!, share: Number(share), count: Number(count) });
    }
    this.parsed.set(lang, (m = out));
    this.blocks.delete(lang);
    return m;
  }

  /** The file's text for the given entries (Brotli-compress it to write the file). */
  static serialise(entries: ReadonlyMap<string, ReadonlyMap<string, FormEntry>>): string {
    const rows: string[] = [];
    for (const [lang, m] of entries) for (const [key, e] of m) if (e.share >= 0.5) rows.push(`${lang}\t${key}\t${e.form}\t${e.share.toFixed(3)}\t${e.count}\n`);
    return rows.join('');
  }

  /**
   * Sets, in `probs`, the letters of each word of a text whose lexicon form is taken
   * (share ≥ `minShare`, count ≥ `minCount`) to that form's class with probability `share`,
   * the letter's other candidates sharing `1 − share` in their earlier proportions. A word
   * whose form does not fit its letters (another length, a mark on a letter without a
   * choice, a class the letter cannot take) is left to the tagger.
   * @param probs per slot, the probability of every class (row k of slot k), changed in place
   * @returns the number of words set
   */
  apply(language: string, us: readonly Unit[], slots: readonly Slot[], probs: Float32Array, classes: readonly string[], minShare: number, minCount: number, unknownPlain = 0): number {
    if (slots.length === 0) return 0;
    const m = this.language(language);
    if (m.size === 0) return 0;
    const C = classes.length;
    const classIndex = classIndexOf(classes);
    const plain = classIndex.get('');
    let set = 0;
    for (const { from: i, to: j, s0: s, s1: e } of wordsWithSlots(us, slots)) {
      let key = '';
      for (let q = i; q < j; q++) key += us[q]!.base;
      const entry = m.get(key.normalize('NFC'));
      const cls = entry && entry.share >= minShare && entry.count >= minCount ? formClasses(entry.form, us, i, j, slots, s, e, classIndex) : null;
      if (entry && cls) {
        for (let k = s; k < e; k++) {
          const c = cls[k - s]!;
          const row = probs.subarray(k * C, (k + 1) * C);
          const rest = 1 - row[c]!;
          for (const x of slots[k]!.candidates) if (x !== c) row[x] = rest > 0 ? row[x]! / rest * (1 - entry.share) : (1 - entry.share) / Math.max(1, slots[k]!.candidates.length - 1);
          row[c] = entry.share;
        }
        set++;
      } else if (unknownPlain > 0 && !entry && plain !== undefined) {
        // a word the lexicon does not hold: its letters as typed gain unknownPlain in log-odds
        const f = Math.exp(unknownPlain);
        for (let k = s; k < e; k++) {
          if (!slots[k]!.candidates.includes(plain)) continue;
          const row = probs.subarray(k * C, (k + 1) * C);
          const p = row[plain]!;
          const z = p * f + (1 - p);
          for (const x of slots[k]!.candidates) row[x] = x === plain ? p * f / z : row[x]! / z;
        }
      }
    }
    return set;
  }
}

/**
 * The class of each slot [s, e) that writes `form` on the letters [i, j) of `us`, or null
 * when it cannot be written so (another length, a mark on a letter without a choice, a
 * class the letter cannot take).
 */
function formClasses(form: string, us: readonly Unit[], i: number, j: number, slots: readonly Slot[], s: number, e: number, classIndex: ReadonlyMap<string, number>): Int32Array | null {
  const fu = units(form);
  if (fu.length !== j - i) return null;
  const out = new Int32Array(e - s);
  let k = s;
  for (let q = i; q < j; q++) {
    const u = us[q]!;
    if (k < e && slots[k]!.unit === q) {
      const c = classIndex.get(classOf(fu[q - i]!.text, u.base));
      if (c === undefined || !slots[k]!.candidates.includes(c)) return null;
      out[k - s] = c;
      k++;
    } else if (fu[q - i]!.text !== u.base) return null;
  }
  return out;
}
