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
 * The chain is every token of the text ({@link tokensOf}): words with a choice of marks,
 * words without one (Polish "w", Spanish "y": one candidate each, there as context) and
 * numbers ({@link NUMBER}), as the training text was counted.
 * Bigrams and trigrams seen once are left out of the file, except in the languages of
 * scripts/word-lm.ts MIN_COUNT (Vietnamese, French); their mass goes to the lower order
 * through the follower counts, which are taken before pruning. With trigrams the
 * decoder is a second-order Viterbi (a state is a pair of forms).
 *
 * Lexicons (issue 35): the file also holds forms the training text never wrote, from
 * Hunspell dictionaries (expanded with their affix rules) and word-frequency lists; they
 * are candidates of their key like any attested form, and their unigram count gets
 * `lexicon_add` when a dictionary writes them plus `prior_weight` × the training tokens ×
 * their share of the frequency list (OpenSubtitles), so that among forms the network finds
 * equally likely the written, frequent one wins. Both are chosen on the news development
 * set (scripts/tune-word-lm.ts).
 *
 * Word classes: a second trigram model of the same kind over the words' classes (their
 * last two letters, or their last letter where it carries a mark, {@link wordClass};
 * Brown et al. 1992 for class-based n-gram models),
 * in its own file (`class_file`), adds `class_weight` × its log probability to each
 * transition. The word trigrams of a few MB of text have seen few contexts of each form;
 * the classes have seen them all, so that "a" followed by a form in -é (French), or a
 * preposition followed by an instrumental in -ą (Polish), is known for forms the word
 * trigrams never met there.
 *
 * Words neither the training text nor a dictionary writes: the word model has nothing to
 * say of them, so their candidates (the network's own form, its `unknown_candidates` next
 * best forms and the letters as typed) are scored by the network (`unknown_char_weight`),
 * the spelling model (spelling-lm.ts, a character n-gram model of word forms trained on
 * the types of the text, the frequency lists and the expanded dictionaries;
 * `spelling_weight`) and the `unknown_plain` bonus. Where the training text writes its
 * marks unevenly (Hausa's hooks), the spelling model weighs the other words' candidates
 * too (`known_spelling_weight`). Such a word written with a capital is mostly a name: where
 * GeoNames writes a place of that key with marks, that form is a candidate with a bonus
 * (`name_bonus`).
 *
 * File: word-lm-format.ts (typed arrays, ids by sorted form; the decoder works on ids, so a
 * text decodes in time linear in its length without building strings per lookup).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LazyParts } from './lazy-parts.ts';
import { formOf, units, type Unit } from './marks.ts';
import { bestClass, classIndexOf, classOf, formFrom, withSlots, type Slot, type Word } from './tagger.ts';
import { firstHighVowel, HIGH_VOWEL_PAIRS, harmonyHost, harmonyVowel, isApostropheSuffix } from './languages.ts';
import { BoundedMemo } from '../../lib/bounded-memo.ts';
import { bytesOf, findIn, findLine, findSorted, lineStarts, openWordLm, type LangArrays } from './word-lm-format.ts';
import { openSpellingLm, SpellingLm, type SpellingArrays } from './spelling-lm.ts';

/** Settings of the word-level rescoring (config.json `word_lm`). */
export interface WordLmSpec {
  /** the model file (word-lm-format.ts), relative to the model folder */
  file: string;
  /** weight of the character network's log probability against the language model's (natural logs), per language (ISO 639-3) with `default` for the others; chosen on the news development set (scripts/tune-word-lm.ts) */
  char_weight: Readonly<Record<string, number>>;
  /** absolute discount of the bigram counts (Ney et al. 1994), 0 < D < 1 */
  discount: number;
  /** additive smoothing of unigram counts; an unseen form counts this much */
  unigram_add: number;
  /** most lexicon forms considered per word (by count), besides the network's own; see candidate_beam */
  max_candidates: number;
  /** 2: bigrams; 3: trigrams too (default 2) */
  order?: number;
  /** pseudo-count added to a form a Hunspell dictionary writes, per language with `default` (default 0) */
  lexicon_add?: Readonly<Record<string, number>>;
  /** weight of the word-frequency list: a form's pseudo-count is this × the training tokens × its share of the list, per language with `default` (default 0) */
  prior_weight?: Readonly<Record<string, number>>;
  /**
   * Log-odds (natural log) added to a word's letters as typed when neither the training
   * text nor a dictionary writes the word, per language with `default` (default 0: no such
   * candidate). Such words in news are mostly names (a network that learnt "Nixón",
   * "Muştafa" from the letters of common words) and words the dictionary writes without
   * marks (the lexicon keeps only keys that have a marked form); the network's own form
   * still wins when it is surer than this. Chosen on the news development set
   * (scripts/tune-word-lm.ts).
   */
  unknown_plain?: Readonly<Record<string, number>>;
  /**
   * Candidates of a word whose score (`char_weight` × the network's log probability of the
   * form, plus any bonus) is more than this below the word's best are dropped before the
   * Viterbi search (natural log; default: none dropped). Such a form wins only where the
   * language model prefers it by more than the beam, which on the news development set
   * never happened at 4 (vie, max_candidates 16: 971 wrong words with and without a beam
   * of 4); it lets `max_candidates` grow without the trigram search's cost (candidates³
   * per word) growing with it (docs/benchmarks.md: 32 candidates with the beam ran as
   * fast as 8 without).
   */
  candidate_beam?: number;
  /**
   * Most Viterbi states carried from one word to the next (histogram pruning; default
   * {@link DEFAULT_MAX_STATES}): the best ones by score. With trigrams a state is a pair of
   * candidates, so without it a word costs up to (candidates + 2)³ language-model lookups;
   * with it at most max_states × (candidates + 2), which bounds a hostile text whose every
   * word has many forms the network cannot tell apart.
   */
  max_states?: number;
  /**
   * The word-class model's file (word-lm-format.ts, the same layout: its "forms" are the
   * classes of {@link wordClass}), relative to the model folder; absent: no class model.
   */
  class_file?: string;
  /** letters of a form's ending that name its class ({@link wordClass}; default {@link DEFAULT_CLASS_SUFFIX}); must be what the class file was built with */
  class_suffix?: number;
  /**
   * Weight of the class model's log probability (natural log) added to the word model's,
   * per language with `default` (default 0: the class model is not read). Chosen on the
   * news development set (scripts/tune-word-lm.ts).
   */
  class_weight?: Readonly<Record<string, number>>;
  /**
   * Log-odds (natural log) taken from a suffix or question-particle form whose first high
   * vowel breaks the vowel harmony of the word before it (languages.ts harmonyHost,
   * VOWEL_HARMONY_LANGUAGES), per language with `default` (default 0: no harmony term, and
   * a suffix after an apostrophe keeps the network's form). With a weight the suffix's
   * forms in the word model are candidates too. Chosen on the news development set
   * (scripts/tune-word-lm.ts).
   */
  harmony_weight?: Readonly<Record<string, number>>;
  /**
   * Weight of the network's log probability for a word that neither the training text
   * nor a dictionary writes (its candidates: the network's forms and the letters as
   * typed), per language with `default` (default: `char_weight`). The word model says
   * nothing of such a word, so the network weighs against the spelling model and
   * `unknown_plain` only. Chosen on the news development set (scripts/tune-word-lm.ts).
   */
  unknown_char_weight?: Readonly<Record<string, number>>;
  /** the spelling model's file (spelling-lm.ts), relative to the model folder; absent: no spelling model */
  spelling_file?: string;
  /**
   * Weight of the spelling model's log probability (natural log) added to each candidate
   * of a word that neither the training text nor a dictionary writes, per language with
   * `default` (default 0: the spelling model is not read, and such a word's candidates are
   * the network's own form and the letters as typed). With a weight the network's
   * {@link DEFAULT_UNKNOWN_CANDIDATES} best forms are candidates too. Chosen on the news
   * development set (scripts/tune-word-lm.ts).
   */
  spelling_weight?: Readonly<Record<string, number>>;
  /** the network's best forms of such a word scored with the spelling model (default {@link DEFAULT_UNKNOWN_CANDIDATES}) */
  unknown_candidates?: number;
  /**
   * Weight of the spelling model's log probability added to each candidate of a word the
   * training text or a dictionary writes, per language with `default` (default 0). Where
   * the training text writes a word now with its marks and now without (Hausa's hooks:
   * Common Voice writes them in about a quarter of its lines), the spelling model, which
   * has seen how all the words of the language are spelt, sides with the marks the other
   * words of that shape carry. On the Hausa news development set this took diacnet-2.0
   * from 192 to 158 wrong words (weight 3); in Spanish and Polish it did harm at every
   * weight. Chosen on the news development set (scripts/tune-word-lm.ts).
   */
  known_spelling_weight?: Readonly<Record<string, number>>;
  /**
   * Log-odds (natural log) added to the place-name form (GeoNames, the file's `names`;
   * scripts/word-lm.ts chosenPlaceNames) of a word written with a capital that neither the
   * training text nor a dictionary writes ("Evreux" → "Évreux", "Boyaca" → "Boyacá"), per
   * language with `default` (default 0: no such candidate). Chosen on the news
   * development set (scripts/tune-word-lm.ts).
   */
  name_bonus?: Readonly<Record<string, number>>;
}

/**
 * Default of `unknown_candidates`: on the Turkish news development set 4 gave one wrong
 * word more than 8, and 16 the same as 8 (scratch runs, settings of then).
 */
export const DEFAULT_UNKNOWN_CANDIDATES = 8;

/**
 * Languages (ISO 639-3) whose marks are written on nearly every word, so that a final
 * marked letter is no inflection of its own: {@link wordClass} names their forms by their
 * last `suffix` letters with their marks. Arabic (its vowels: the case ending is the last
 * letter's) and Yorùbá (its tones on every vowel). Igbo, tried too, moved by 6 held-out
 * words and none of its news ones, and keeps the rule of the other languages.
 */
export const UNIT_CLASS_LANGUAGES: ReadonlySet<string> = new Set(['ara', 'yor']);

/** Default of `class_suffix`: the last two letters (on the news development set one did worse in French, three in French and Polish; docs/diacritics.md); a final marked letter names the class alone ({@link wordClass}). */
export const DEFAULT_CLASS_SUFFIX = 2;

/**
 * The class of a lower-case form in the word-class model: a form of at most `suffix` + 1
 * letters (code points) is a class of its own (`=` and the form: the function words "a",
 * "à", "el", "él", "że", "ze" stay apart); a longer form whose last letter carries a mark
 * (marks.ts units `marked`) is named by that letter alone (`-` and the letter: Spanish
 * "trasladó" and "señaló" are both `-ó`, French "décidé" and "aidé" `-é`, Polish "głową"
 * `-ą`); any other by its last `suffix` letters (`-` and the ending: "pense" is `-se`,
 * "traslado" `-do`); `<s>`, `</s>` and {@link NUMBER} are themselves. A class-based n-gram
 * model (Brown et al. 1992, "Class-based n-gram models of natural language",
 * Computational Linguistics 18(4)) with the endings as classes gives the word model what
 * its sparse word trigrams lack for a word never seen in a context: that a past participle
 * in -é follows "a" in French, an instrumental in -ą follows "z" in Polish, a preterite in
 * -ó follows "se" in Spanish. A final marked letter is an inflection of its own (the
 * Spanish preterite, the French participle, the Polish instrumental and accusative), so
 * its class pools every letter before it: on the news development set (diacnet-2.0,
 * settings retuned) that took Spanish from 414 to 390 wrong words, French from 364 to 348
 * and Polish from 124 to 120 (docs/diacritics.md). In a language of
 * {@link UNIT_CLASS_LANGUAGES}, whose words nearly all end in a marked letter, a form is
 * named by its last `suffix` letters with their marks (marks.ts units) instead: in Arabic
 * the final letter's vowel is the case ending ("فِي" then a genitive in -ِ) and the
 * letter before it tells the ending's pattern apart (the sound plural "-ونَ", "-ينَ"); in
 * Yorùbá "ọmọ̀" is `-mọ̀`, not the `-ọ̀` of every word ending in that tone. Chosen for
 * Arabic on 500 lines of its held-out split (diacnet-2.0, DER with case endings, 3.63 %
 * without a class model): the last two letters with their marks 3.46, the last letter
 * alone 3.52, its vowel alone 3.54, the last three 3.46 with a part of 5.6 MB against 3.6;
 * for Yorùbá on its news development set (diacnet-2.0 75.40 → 75.46 %, the held-out split
 * 83.48 → 84.57; docs/diacritics.md).
 * @param language the form's language (ISO 639-3; default none: the rule of most languages)
 */
export function wordClass(form: string, suffix: number, language = ''): string {
  if (form === START || form === END || form === NUMBER) return form;
  const cps = [...form];
  if (cps.length <= suffix + 1) return `=${form}`;
  const us = units(form);
  if (UNIT_CLASS_LANGUAGES.has(language)) return `-${us.slice(-suffix).map((u) => u.text).join('')}`;
  const last = us[us.length - 1];
  return last?.letter && last.marked ? `-${last.text}` : `-${cps.slice(-suffix).join('')}`;
}

/**
 * Default of `max_states`. On the news development set 64 states gave the same answers as
 * no limit in every language measured (vie 846, fra 419, pol 144, tur 241, spa 439, por
 * 336 wrong words, Arabic held-out 3,993, either way; 32 cost 4 Vietnamese words).
 * bench:diacritics' hostile text (20,000 characters of Vietnamese words with many forms,
 * in random order) took diacnet-2.0 1.94–2.36 s with it and 2.77–3.03 s without
 * (docs/benchmarks.md).
 */
export const DEFAULT_MAX_STATES = 64;

/** The start-of-text context. */
export const START = '<s>';
/** The end of a text, predicted after its last word (so that each context's probabilities sum to one). */
export const END = '</s>';
/**
 * The token of a number (a run of decimal digits, Unicode Nd) in the word and class models:
 * the words around a number are each other's context and the number theirs ("né le 26
 * octobre" is "né le <num> octobre"), as in the training text ({@link tokensOf}).
 */
export const NUMBER = '<num>';

/** A unit that is a decimal digit (Unicode Nd). */
const isDigit = (u: Unit): boolean => !u.letter && /^\p{Nd}$/u.test(u.base);

/**
 * The tokens of a text for the word and class models, in order: its words (maximal runs of
 * letter units, `[from, to)` in units; every word, with or without a slot) and its numbers
 * (maximal runs of digit units, `number: true`); anything else (spaces, punctuation)
 * separates them and is no token. scripts/word-lm.ts formsOfLine counts the training
 * lines with the same rule, so that the decoder's contexts are the ones counted.
 * @param us the text's units (marks.ts units)
 * @returns per token its units and whether it is a number
 */
export function tokensOf(us: readonly Unit[]): Array<{ from: number; to: number; number: boolean }> {
  const out: Array<{ from: number; to: number; number: boolean }> = [];
  for (let i = 0; i < us.length;) {
    const number = isDigit(us[i]!);
    if (!number && !us[i]!.letter) { i++; continue; }
    let j = i + 1;
    while (j < us.length && (number ? isDigit(us[j]!) : us[j]!.letter)) j++;
    out.push({ from: i, to: j, number });
    i = j;
  }
  return out;
}
/** Log probability of a mark the network does not allow for a letter (a lexicon form the class space lacks). */
const LOG_FLOOR = Math.log(1e-9);

/** Entries each lookup cache of a {@link LangLm} keeps before it starts again. */
export const LOOKUP_CACHE_MAX = 16_384;
/**
 * Longest key (UTF-16 code units) a lookup cache keeps; a longer one is looked up every
 * time. With {@link LOOKUP_CACHE_MAX}, a cache holds a few MB at most whatever words
 * clients send (16,384 keys of up to 80 bytes, each with its entry).
 */
export const LOOKUP_CACHE_KEY_MAX = 40;

/** A per-language setting: the language's value, else `default`, else 0. */
const perLanguage = (r: Readonly<Record<string, number>> | undefined, language: string): number => r?.[language] ?? r?.default ?? 0;

/** One language's lexicon and language model over form ids (-1: a form the file lacks). */
export class LangLm {
  readonly start: number;
  readonly end: number;
  private readonly den: number;
  private readonly priorScale: number;
  private readonly lexiconAdd: number;
  private readonly blob: Buffer;
  private readonly keys: Buffer;
  private readonly dict: Buffer;
  private readonly dictStart: Uint32Array;
  private readonly names: Buffer;
  private readonly namesStart: Uint32Array;
  /**
   * Lookups by string, kept: a text's words repeat (function words above all), and each
   * binary search over the byte tables costs about 17 native compares. Bounded by
   * {@link LOOKUP_CACHE_MAX} entries of keys up to {@link LOOKUP_CACHE_KEY_MAX} each;
   * `formCache` by the forms of the tables (the strings of the file's `forms` blob).
   */
  private readonly idCache = new BoundedMemo<number>(LOOKUP_CACHE_MAX, LOOKUP_CACHE_KEY_MAX);
  private readonly formsCache = new BoundedMemo<Uint32Array>(LOOKUP_CACHE_MAX, LOOKUP_CACHE_KEY_MAX);
  private readonly dictCache = new BoundedMemo<readonly string[]>(LOOKUP_CACHE_MAX, LOOKUP_CACHE_KEY_MAX);
  private readonly nameCache = new BoundedMemo<string | null>(LOOKUP_CACHE_MAX, LOOKUP_CACHE_KEY_MAX);
  private readonly formCache: string[] = [];

  constructor(readonly a: LangArrays, private readonly spec: WordLmSpec, readonly language: string) {
    this.blob = bytesOf(a.forms);
    this.keys = bytesOf(a.keys);
    this.dict = bytesOf(a.dict);
    this.dictStart = lineStarts(a.dictLen);
    this.names = bytesOf(a.names);
    this.namesStart = lineStarts(a.namesLen);
    this.start = this.id(START);
    this.end = this.id(END);
    const types = a.count.length - (this.start >= 0 ? 1 : 0) + (a.lexiconForms - a.lexicon.reduce((n, x) => n + x, 0));
    const lexicon = a.lexiconForms;
    let prior = 0;
    for (let i = 0; i < a.count.length; i++) prior += a.prior[i]!;
    this.lexiconAdd = perLanguage(spec.lexicon_add, language);
    this.priorScale = perLanguage(spec.prior_weight, language) * a.tokens;
    this.den = a.tokens + spec.unigram_add * (types + 1) + this.lexiconAdd * lexicon + this.priorScale * prior;
  }

  /** Entries the string lookup caches hold now (id, forms of a key, dictionary forms of a key, place name of a key). */
  get cachedKeys(): number { return this.idCache.size + this.formsCache.size + this.dictCache.size + this.nameCache.size; }

  /** The id of a form, or -1. */
  id(form: string): number {
    return this.idCache.get(form, () => findSorted(this.blob, this.a.formStart, Buffer.from(form, 'utf8')));
  }

  /** The form of an id. */
  form(id: number): string {
    return (this.formCache[id] ??= this.blob.toString('utf8', this.a.formStart[id]!, this.a.formStart[id + 1]! - 1));
  }

  /** The ids of a key's forms, most frequent first (a view of the tables: not to be written). */
  formsOf(key: string): Uint32Array {
    return this.formsCache.get(key, () => {
      const k = findSorted(this.keys, this.a.keyStart, Buffer.from(key, 'utf8'));
      return k < 0 ? new Uint32Array(0) : this.a.keyForms.subarray(this.a.keyFormStart[k]!, this.a.keyFormStart[k + 1]!);
    });
  }

  /** The dictionary forms of a key that the tables lack (Hunspell lexicon, word-lm-format.ts `dict`); the array is shared: not to be written. */
  dictionaryFormsOf(key: string): readonly string[] {
    return this.dictCache.get(key, () => {
      const k = findLine(this.dict, this.dictStart, Buffer.from(key, 'utf8'));
      return k < 0 ? [] : this.dict.toString('utf8', this.dictStart[k]!, this.dictStart[k + 1]! - 1).split('\t').slice(1);
    });
  }

  /** The place-name form of a key that the tables and the dictionary lack (word-lm-format.ts `names`), or null. */
  placeNameOf(key: string): string | null {
    return this.nameCache.get(key, () => {
      const k = findLine(this.names, this.namesStart, Buffer.from(key, 'utf8'));
      return k < 0 ? null : this.names.toString('utf8', this.names.indexOf(9, this.namesStart[k]!) + 1, this.namesStart[k + 1]! - 1);
    });
  }

  /**
   * Natural log of P(f | p2 p) over ids; `p2` null for a bigram; `f` -1 for a form the
   * tables lack, which counts as a dictionary form when `inDictionary`.
   */
  logProb(p2: number | null, p: number, f: number, inDictionary = false): number {
    return this.logProbIn(this.context(p2, p), p, f, inDictionary);
  }

  /**
   * The trigram context (p2, p) as the index of its bigram, when the tables have trigrams
   * after it; else -1 (the estimate stops at the bigram). A Viterbi state looks it up once
   * for all the candidates of the next word.
   */
  context(p2: number | null, p: number): number {
    if (p2 === null || p2 < 0 || p < 0) return -1;
    const a = this.a;
    const ctx = findIn(a.biNext, a.biStart[p2]!, a.biStart[p2 + 1]!, p);
    return ctx >= 0 && a.biCount[ctx]! > 0 && a.biFollowers[ctx]! > 0 ? ctx : -1;
  }

  /** {@link logProb} with the trigram context from {@link context} (-1: none). */
  logProbIn(ctx: number, p: number, f: number, inDictionary = false): number {
    return this.logProbFrom(ctx, f, this.bigramPr(p, f, inDictionary));
  }

  /**
   * P(f | p), the estimate up to the bigram (a probability, > 0): the part of
   * {@link logProbIn} that the states of a Viterbi step with the same previous form share.
   */
  bigramPr(p: number, f: number, inDictionary = false): number {
    const a = this.a; const D = this.spec.discount;
    let pr = ((f < 0 ? (inDictionary ? this.lexiconAdd : 0) : a.count[f]! + this.lexiconAdd * a.lexicon[f]! + this.priorScale * a.prior[f]!) + this.spec.unigram_add) / this.den;
    if (p >= 0 && a.count[p]! > 0) {
      const n = a.count[p]!;
      const j = f < 0 ? -1 : findIn(a.biNext, a.biStart[p]!, a.biStart[p + 1]!, f);
      const c = j < 0 ? 0 : a.biCount[j]!;
      pr = Math.max(c - D, 0) / n + (D * a.followers[p]! / n) * pr;
    }
    return pr;
  }

  /** Natural log of P(f | ctx) from the trigram context ({@link context}; -1: none) and {@link bigramPr}'s estimate. */
  logProbFrom(ctx: number, f: number, bigram: number): number {
    let pr = bigram;
    if (ctx >= 0) {
      const a = this.a; const D = this.spec.discount;
      const n = a.biCount[ctx]!;
      const j = f < 0 ? -1 : findIn(a.triNext, a.triStart[ctx]!, a.triStart[ctx + 1]!, f);
      const c = j < 0 ? 0 : a.triCount[j]!;
      pr = Math.max(c - D, 0) / n + (D * a.biFollowers[ctx]! / n) * pr;
    }
    return Math.log(pr);
  }

  /** per form id, the id of its class in a class model (-2: not looked up yet), for the last class model asked */
  private classIds: { of: LangLm; suffix: number; ids: Int32Array } | null = null;

  /**
   * The id of form `id`'s class ({@link wordClass} of `suffix` letters) in the class model
   * `of` (-1: a class it lacks), looked up once per form (4 bytes per form of the tables, on
   * first use): a text's candidates are mostly the same frequent forms.
   */
  classId(id: number, of: LangLm, suffix: number): number {
    let c = this.classIds;
    if (!c || c.of !== of || c.suffix !== suffix) c = this.classIds = { of, suffix, ids: new Int32Array(this.a.count.length).fill(-2) };
    let v = c.ids[id]!;
    if (v === -2) v = c.ids[id] = of.id(wordClass(this.form(id), suffix, this.language));
    return v;
  }
}

/** A lexicon with its language model, per language (ISO 639-3). */
export class WordLm {
  private readonly parts: LazyParts<LangArrays, LangLm>;

  /** the word-class model (spec `class_file`), itself a WordLm whose forms are classes ({@link wordClass}), or null */
  readonly classes: WordLm | null;
  /** the spelling model (spec `spelling_file`, spelling-lm.ts) per language, or null */
  readonly spelling: LazyParts<SpellingArrays, SpellingLm> | null;

  /**
   * @param arrays per language its arrays, or a function that gives them (called once, on the language's first use)
   * @param classArrays the same for the word-class model (spec `class_file`); null: none
   * @param spellingArrays the same for the spelling model (spec `spelling_file`); null: none
   * @param what what the model is, in the error of a part that cannot be read
   */
  constructor(readonly spec: WordLmSpec, arrays: ReadonlyMap<string, LangArrays | (() => LangArrays)> = new Map(), classArrays: ReadonlyMap<string, LangArrays | (() => LangArrays)> | null = null, spellingArrays: ReadonlyMap<string, SpellingArrays | (() => SpellingArrays)> | null = null, what = 'word model') {
    this.parts = new LazyParts(arrays, (a, lang) => new LangLm(a, spec, lang), what);
    // the class model has no lexicons: its unigrams are its counts alone
    this.classes = classArrays ? new WordLm({ ...spec, lexicon_add: undefined, prior_weight: undefined, class_file: undefined }, classArrays, null, null, 'word-class model') : null;
    this.spelling = spellingArrays ? new LazyParts(spellingArrays, (a) => new SpellingLm(a), 'spelling model') : null;
  }

  /**
   * Reads a model file (word-lm-format.ts openWordLm), and the class model's and the
   * spelling model's files (`spec.class_file`, `spec.spelling_file`, in the same folder)
   * when the spec names them: a packed file's index now, each language's typed arrays on
   * its first use; no parsing.
   * @throws Error when a file is missing or not of its format (a damaged language part: on its first use)
   */
  static load(path: string, spec: WordLmSpec): WordLm {
    const beside = (file: string) => readFileSync(join(dirname(path), file));
    return new WordLm(spec, openWordLm(readFileSync(path)), spec.class_file ? openWordLm(beside(spec.class_file)) : null, spec.spelling_file ? openSpellingLm(beside(spec.spelling_file)) : null);
  }

  /** Whether the model has a lexicon for the language (a damaged one too: lang() then throws). */
  has(language: string): boolean { return this.parts.has(language); }

  /**
   * The language's tables (undefined when the model lacks the language); the first call for
   * a language of a packed file decompresses it.
   * @throws EngineError INFERENCE_FAILED, with the reading error as `cause`, when the
   *   language's part of the file cannot be read (a damaged file); that call and every later
   *   one for the language, without reading the part again
   */
  lang(language: string): LangLm | undefined { return this.parts.get(language); }

  /** The forms of a key (lower case, marks stripped): those of the tables most frequent first, then the dictionary's. */
  formsOf(language: string, key: string): string[] {
    const l = this.lang(language);
    return l ? [...[...l.formsOf(key)].map((id) => l.form(id)), ...l.dictionaryFormsOf(key)] : [];
  }

  /** The model's order (2 or 3). */
  get order(): number { return Math.min(3, Math.max(2, this.spec.order ?? 2)); }

  /**
   * Natural log of P(form | prev2 prev) (module comment); `prev2` null for a bigram
   * model. Unknown languages give 0.
   */
  logProb(language: string, prev2: string | null, prev: string, form: string): number {
    const l = this.lang(language);
    if (!l) return 0;
    return l.logProb(prev2 === null ? null : l.id(prev2), l.id(prev), l.id(form));
  }
}

/** A word's lexicon key: lower case, marks stripped (its units' bases). */
export const keyOf = (form: string): string => units(form).map((u) => u.base).join('');

/**
 * The class of every slot of a text after word-level rescoring: per word, the candidate
 * forms (the network's best, and the lexicon's forms of the word's key), scored by
 * `char_weight` × the network's log probability plus the language model (trigram, or
 * bigram with `order` 2), best path by Viterbi. A letter the caller typed with marks that the network does not reject
 * (probability ≥ `keepTypedBelow`) restricts the word's candidates to forms that keep it.
 * Candidates scoring more than `candidate_beam` below the word's best are dropped.
 * A suffix set off by an apostrophe (Turkish "Ankara'nın", languages.ts
 * isApostropheSuffix) has the network's form as its only candidate: its vowels follow the
 * stem, which the network sees and the word model does not (on the Turkish news
 * development set this took diacnet-2.0 from 261 to 245 wrong words of 10,415), unless
 * the language gives vowel harmony a weight (`harmony_weight`): then the suffix's forms in
 * the word model and its forms with all high vowels back or all front are candidates,
 * and a form whose first high vowel breaks the harmony of the word before it (the host's
 * candidate on the path; languages.ts harmonyHost) loses the weight; so does the question
 * particle (mı / mi / mu / mü). On the Turkish news development set this took
 * diacnet-2.0 from 237 to 226 wrong words (weight 2).
 * With a class model and a `class_weight` for the language, each transition also scores
 * `class_weight` × the class model's log probability of the form's class
 * ({@link wordClass}) after the previous two forms' classes; a form the word model's
 * tables lack counts as the class model's unknown (see `Cand.cls` below).
 * A word whose key neither the tables nor a dictionary has scores its candidates with
 * `unknown_char_weight` instead of `char_weight`, and, where the language gives the
 * spelling model a weight, `spelling_weight` × the spelling model's log probability of
 * each candidate, the network's `unknown_candidates` best forms ({@link bestForms}) among
 * them. On the news development set this took diacnet-2.0 from 226 to 187 wrong Turkish
 * words and from 227 to 192 Hausa ones (docs/diacritics.md). With `known_spelling_weight`
 * the spelling model scores the candidates of the other words too (Hausa 192 → 157).
 * Such a word written with a capital whose key the file's place names have (GeoNames;
 * scripts/word-lm.ts chosenPlaceNames) gets that form as a candidate with `name_bonus`.
 * @param probs per slot, the probability of every class (row k of slot k, `classes.length` long)
 * @param classes the class strings, by id
 * @returns the chosen class id per slot
 * @throws EngineError INFERENCE_FAILED when the language's part of the word model, or of the class or spelling model where the language gives it a weight, cannot be read
 */
export function decodeText(lm: WordLm, language: string, us: readonly Unit[], slots: readonly Slot[], probs: ArrayLike<number>, classes: readonly string[], keepTypedBelow: number): Int32Array {
  const C = classes.length;
  const classIndex = classIndexOf(classes);
  // the network's own choice per slot
  const chosen = Int32Array.from(slots, (slot, k) => bestClass(slot, probs, k, C));
  if (!lm.has(language)) return chosen;
  // every word and number of the text (the training text's tokens); a word without a slot
  // and a number have one candidate each and are there as context
  const words = withSlots(tokensOf(us), slots);
  if (!words.some((w) => w.s1 > w.s0)) return chosen;
  const W = lm.spec.char_weight[language] ?? lm.spec.char_weight.default ?? 0.5;
  const Wu = lm.spec.unknown_char_weight?.[language] ?? lm.spec.unknown_char_weight?.default ?? W;
  const plainBonus = perLanguage(lm.spec.unknown_plain, language);
  const nameBonus = perLanguage(lm.spec.name_bonus, language);
  // the spelling model, for words neither the text nor a dictionary writes, when the language gives it a weight
  const spellingWeight = perLanguage(lm.spec.spelling_weight, language);
  const knownSpellingWeight = perLanguage(lm.spec.known_spelling_weight, language);
  const spell = spellingWeight > 0 || knownSpellingWeight > 0 ? lm.spelling?.get(language) ?? null : null;
  const unknownCandidates = lm.spec.unknown_candidates ?? DEFAULT_UNKNOWN_CANDIDATES;
  const beam = lm.spec.candidate_beam;
  const maxStates = lm.spec.max_states ?? DEFAULT_MAX_STATES;
  /** the class of a letter without a mark */
  const plainClass = classIndex.get('');

  // per word: candidates as class ids per slot, with their form and char score
  const table = lm.lang(language)!;
  // the word-class model, when the language gives it a weight
  const classWeight = perLanguage(lm.spec.class_weight, language);
  const ct = classWeight > 0 && lm.classes?.has(language) ? lm.classes.lang(language)! : null;
  const suffix = lm.spec.class_suffix ?? DEFAULT_CLASS_SUFFIX;
  /**
   * `cls`: the form's class id in the class model; -1 (the class model's unknown) for a form
   * the training text never wrote (a dictionary's form, the network's or the typed letters
   * of an unknown word): nothing says such a form behaves as the written members of its
   * class do. On the news development set this took the class model from 393 to 379 wrong
   * French words and from 145 to 129 Polish ones (class_weight 0.35, the other settings
   * as before), against the class of their ending.
   */
  type Cand = { form: string; id: number; cls: number; dict: boolean; classes: Int32Array; score: number; first?: string | null; takes?: string | null };
  // vowel harmony: per word, null, or the high vowel its suffix takes after a host whose
  // form is fixed (`vowel`), or whose form is the previous word's candidate (`prev`)
  const harmonyWeight = perLanguage(lm.spec.harmony_weight, language);
  // per word, its lexicon key (its letters' bases)
  const keys = words.map((w) => us.slice(w.from, w.to).map((u) => u.base).join(''));
  const harmonyOf: ({ prev: true } | { prev: false; vowel: string | null } | null)[] = words.map((w, i) => {
    if (harmonyWeight <= 0 || w.number) return null;
    const host = harmonyHost(language, us, w.from, keys[i]!);
    if (!host) return null;
    if (host.abbreviation) return { prev: false, vowel: null };
    const before = words[i - 1];
    if (before && before.from === host.from && before.to === host.to) return { prev: true };
    return { prev: false, vowel: harmonyVowel(us.slice(host.from, host.to).map((u) => formOf(u, language)).join('').normalize('NFC')) };
  });
  /** a candidate's `cls` from its id in the word model (-1: not in its tables) */
  const classIdOf = (formId: number): number => (ct && formId >= 0 ? table.classId(formId, ct, suffix) : -1);
  const lattice: Cand[][] = words.map((w, wi) => {
    if (w.s0 === w.s1) {
      // a number or a word without a slot: its one form, a context of its neighbours as in the training text
      const form = w.number ? NUMBER : formWith(us, w, slots, new Int32Array(0), classes, language);
      const id = table.id(form);
      return [{ form, id, cls: classIdOf(id), dict: false, classes: new Int32Array(0), score: 0 }];
    }
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
    const key = keys[wi]!;
    const dictForms = table.dictionaryFormsOf(key);
    const ids = table.formsOf(key);
    // a word neither the training text nor a dictionary writes: the network against the
    // spelling model and the letters as typed
    const unknown = ids.length === 0 && dictForms.length === 0;
    const weight = unknown ? Wu : W;
    // the spelling model's weight for this word's candidates (0: not scored by it)
    const spellWeight = spell ? (unknown ? spellingWeight : knownSpellingWeight) : 0;
    /**
     * `id`: the form's id when the caller has it (undefined: look it up; dictionary forms
     * have none); `bonus`: added to the form's score, or to the candidate's that already
     * has the form (the network's own form may be the letters as typed or a place name)
     */
    const add = (cls: Int32Array, form: string, dict = false, id?: number, bonus = 0) => {
      if (seen.has(form)) {
        if (bonus !== 0) out.find((c) => c.form === form)!.score += bonus;
        return;
      }
      for (const [k, t] of typedFixed) if (cls[k - w.s0] !== t) return;
      let score = 0;
      for (let k = w.s0; k < w.s1; k++) {
        const c = cls[k - w.s0]!;
        score += c < 0 ? LOG_FLOOR : Math.log(Math.max(probs[k * C + c]!, 1e-9));
      }
      seen.add(form);
      const formId = dict ? -1 : id ?? table.id(form);
      out.push({ form, id: formId, cls: classIdOf(formId), dict, classes: cls, score: weight * score + bonus + (spellWeight > 0 ? spellWeight * spell!.logProb(form) : 0) });
    };
    // the network's form (with the typed marks it keeps)
    const own = new Int32Array(w.s1 - w.s0);
    for (let k = w.s0; k < w.s1; k++) own[k - w.s0] = typedFixed.get(k) ?? chosen[k]!;
    const ownForm = formWith(us, w, slots, own, classes, language);
    add(own, ownForm, dictForms.includes(ownForm));
    // a suffix after an apostrophe (Turkish "Ankara'da") keeps the network's vowels, unless
    // the harmony term weighs its forms
    if (isApostropheSuffix(language, us, w.from) && !harmonyOf[wi]) return out;
    /** a lexicon form's class per slot (-1: a mark the network does not allow there), or null when it does not fit the word's letters */
    const classesOf = (form: string): Int32Array | null => {
      const fu = units(form);
      if (fu.length !== w.to - w.from) return null;
      const cls = new Int32Array(w.s1 - w.s0);
      for (let i = w.from; i < w.to; i++) {
        const k = slotAt.get(i);
        const f = fu[i - w.from]!;
        if (k === undefined) {
          if (f.text !== us[i]!.base && f.text !== formOf(us[i]!, language)) return null;
          continue;
        }
        const c = classIndex.get(classOf(f.text, us[i]!.base));
        cls[k - w.s0] = c !== undefined && slots[k]!.candidates.includes(c) ? c : -1;
      }
      return cls;
    };
    let n = 0;
    for (let q = 0; q < ids.length + dictForms.length; q++) {
      if (n >= lm.spec.max_candidates) break;
      const dict = q >= ids.length;
      const form = dict ? dictForms[q - ids.length]! : table.form(ids[q]!);
      const cls = classesOf(form);
      if (!cls) continue;
      n++;
      add(cls, form, dict, dict ? undefined : ids[q]);
    }
    // a word no lexicon knows, written with a capital: GeoNames' form of a place of its
    // letters, with a bonus
    const placeName = nameBonus > 0 && unknown && us[w.from]!.upper ? table.placeNameOf(key) : null;
    const nameClasses = placeName ? classesOf(placeName) : null;
    if (placeName && nameClasses && nameClasses.every((c) => c >= 0)) add(nameClasses, placeName, false, undefined, nameBonus);
    if (plainBonus > 0 && unknown && plainClass !== undefined) {
      // a word no lexicon knows: its letters as typed (the marks the caller typed kept)
      const plain = new Int32Array(w.s1 - w.s0);
      for (let k = w.s0; k < w.s1; k++) plain[k - w.s0] = typedFixed.get(k) ?? (slots[k]!.candidates.includes(plainClass) ? plainClass : own[k - w.s0]!);
      add(plain, formWith(us, w, slots, plain, classes, language), false, undefined, plainBonus);
    }
    // and the network's next best forms, for the spelling model to weigh
    if (unknown && spellWeight > 0) for (const cls of bestForms(slots, w.s0, w.s1, probs, C, typedFixed, unknownCandidates)) add(cls, formWith(us, w, slots, cls, classes, language));
    if (out.length === 0) {
      const ownId = table.id(ownForm);
      return [{ form: ownForm, id: ownId, cls: classIdOf(ownId), dict: false, classes: own, score: 0 }];
    }
    let kept = out;
    if (beam !== undefined) {
      let top = -Infinity;
      for (const c of out) if (c.score > top) top = c.score;
      kept = out.filter((c) => c.score >= top - beam);
    }
    // a harmonic word: its high vowels all back and all front as well, whatever the beam
    // (the network can be sure of the wrong one where it misreads the stem)
    if (harmonyOf[wi]) for (const side of [0, 1]) {
      const variant = Int32Array.from(own);
      for (let k = w.s0; k < w.s1; k++) {
        const base = us[slots[k]!.unit]!.base;
        const pair = HIGH_VOWEL_PAIRS[base];
        const c = pair ? classIndex.get(classOf(pair[side]!, base)) : undefined;
        if (c !== undefined && slots[k]!.candidates.includes(c)) variant[k - w.s0] = c;
      }
      const n0 = out.length;
      add(variant, formWith(us, w, slots, variant, classes, language));
      if (kept !== out && out.length > n0) kept.push(out[n0]!);
    }
    return kept;
  });
  // a harmonic word's candidates: their first high vowel; its host's: the high vowel they give
  lattice.forEach((cands, w) => {
    if (harmonyOf[w]) for (const c of cands) c.first = firstHighVowel(c.form);
    if (harmonyOf[w + 1]?.prev) for (const c of cands) c.takes = harmonyVowel(c.form);
  });

  // Viterbi over the words. A state is the pair (candidate of the previous word, candidate
  // of this word); for a bigram model the previous word's candidate only carries the path.
  const trigram = lm.order >= 3;
  type State = { prev: number; cur: number; score: number; back: number };
  let states: State[] = [{ prev: -1, cur: -1, score: 0, back: -1 }];
  const idAt = (w: number, j: number) => (w < 0 || j < 0 ? table.start : lattice[w]![j]!.id);
  const clsAt = (w: number, j: number) => (w < 0 || j < 0 ? ct!.start : lattice[w]![j]!.cls);
  const history: State[][] = [];
  for (let w = 0; w < lattice.length; w++) {
    const cands = lattice[w]!;
    const next = new Map<number, State>(); // key: prevIndex * K + cur
    const harmony = harmonyOf[w];
    // the bigram estimates of the word's candidates after each candidate of the previous
    // word, computed once for all the states that end in it (0: not yet)
    const K = cands.length;
    const rows = w > 0 ? lattice[w - 1]!.length : 1;
    const biWord = new Float64Array(rows * K);
    const biClass = ct ? new Float64Array(rows * K) : null;
    for (let si = 0; si < states.length; si++) {
      const s = states[si]!;
      const takes = !harmony ? null : harmony.prev ? lattice[w - 1]![s.cur]!.takes! : harmony.vowel;
      // the state's contexts, looked up once for all the word's candidates
      const prev = idAt(w - 1, s.cur);
      const ctx = trigram ? table.context(idAt(w - 2, s.prev), prev) : -1;
      const cPrev = ct ? clsAt(w - 1, s.cur) : -1;
      const cCtx = ct && trigram ? ct.context(clsAt(w - 2, s.prev), cPrev) : -1;
      const row = (s.cur < 0 ? 0 : s.cur) * K;
      for (let j = 0; j < K; j++) {
        const c = cands[j]!;
        let bw = biWord[row + j]!;
        if (bw === 0) bw = biWord[row + j] = table.bigramPr(prev, c.id, c.dict);
        let v = s.score + table.logProbFrom(ctx, c.id, bw) + c.score;
        if (ct) {
          let bc = biClass![row + j]!;
          if (bc === 0) bc = biClass![row + j] = ct.bigramPr(cPrev, c.cls);
          v += classWeight * ct.logProbFrom(cCtx, c.cls, bc);
        }
        if (takes && c.first && c.first !== takes) v -= harmonyWeight;
        const key = trigram ? (s.cur + 1) * cands.length + j : j;
        const old = next.get(key);
        if (!old || v > old.score) next.set(key, { prev: s.cur, cur: j, score: v, back: si });
      }
    }
    history.push(states);
    states = [...next.values()];
    // histogram pruning: the best maxStates states go on, so that a text of words with many
    // candidates each costs at most maxStates × candidates per word, not candidates³
    if (states.length > maxStates) states = states.sort((x, y) => y.score - x.score).slice(0, maxStates);
  }
  // the end of the text
  const last = lattice.length - 1;
  for (const s of states) {
    s.score += table.logProb(trigram ? idAt(last - 1, s.prev) : null, idAt(last, s.cur), table.end);
    if (ct) s.score += classWeight * ct.logProb(trigram ? clsAt(last - 1, s.prev) : null, clsAt(last, s.cur), ct.end);
  }
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

/**
 * The `k` assignments of classes to slots `s0` … `s1` − 1 with the highest sum of the
 * network's log probabilities (beam search with back-pointers: time and memory
 * linear in the slots), best first; a slot in `fixed` keeps its class.
 * @param probs per slot the probability of every class (row k of slot k, `C` long)
 * @returns per assignment the class of each slot, relative to `s0`
 */
export function bestForms(slots: readonly Slot[], s0: number, s1: number, probs: ArrayLike<number>, C: number, fixed: ReadonlyMap<number, number>, k: number): Int32Array[] {
  type Entry = { back: number; cls: number; score: number };
  const steps: Entry[][] = [];
  let beam: Entry[] = [{ back: -1, cls: -1, score: 0 }];
  for (let s = s0; s < s1; s++) {
    const f = fixed.get(s);
    const choices = f === undefined ? slots[s]!.candidates : [f];
    const next: Entry[] = [];
    beam.forEach((e, i) => { for (const c of choices) next.push({ back: i, cls: c, score: e.score + Math.log(Math.max(probs[s * C + c]!, 1e-9)) }); });
    next.sort((x, y) => y.score - x.score);
    steps.push(beam = next.slice(0, k));
  }
  return beam.map((_, i) => {
    const out = new Int32Array(s1 - s0);
    for (let s = s1 - 1, j = i; s >= s0; s--) { const e = steps[s - s0]![j]!; out[s - s0] = e.cls; j = e.back; }
    return out;
  });
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
