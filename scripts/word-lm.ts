/**
 * The word lexicon and language model of the diacnet models
 * (services/capabilities/diacritize/word-lm.ts has the decoder, word-lm-format.ts the
 * file), counted from the training lines of scripts/diacritics-data.ts (neither the
 * held-out split nor the news development set is read), with the Hunspell and
 * frequency-list lexicons of scripts/diacritics-lexicons.ts. Usage: `tsx scripts/word-lm.ts
 * --out FILE.bin [--class-out class-lm.bin] [--spelling-out spelling-lm.bin] [--corpora DIR] [--max-lines N] [--hunspell pol,tur,spa,fra,por]
 * [--place-names ibo,spa,fra]` (`--hunspell ''` builds without dictionaries, `--place-names ''` without
 * GeoNames' place names, {@link PLACE_NAME_LANGUAGES}; `--class-out` also writes the word-class
 * model, {@link buildClassLanguages}, `--spelling-out` the spelling model,
 * {@link buildSpellingLanguages}; any of the three flags may come alone).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { formOf, hasMarks, units, vietnameseToneOnFirstVowel } from '../services/capabilities/diacritize/marks.ts';
import { DEFAULT_CLASS_SUFFIX, END, keyOf, NUMBER, START, tokensOf, wordClass } from '../services/capabilities/diacritize/word-lm.ts';
import { encodeWordLm, packWordLm, type LangArrays } from '../services/capabilities/diacritize/word-lm-format.ts';
import { CORPORA, DIACRITICS_SOURCES, lineWeight, linesOf, registerWeight } from './diacritics-data.ts';
import { frequencyShares, HUNSPELL, hunspellWords, lexiconOf, placeNameCounts, type LexiconEntry, type PlaceNameCounts } from './diacritics-lexicons.ts';
import { buildSpellingArrays, spellingForms, textFormCounts } from './spelling-lm.ts';
import { packSpellingLm, type SpellingArrays } from '../services/capabilities/diacritize/spelling-lm.ts';

/**
 * The tokens of a line for the word and class models (word-lm.ts tokensOf, as the decoder
 * reads a text): lower-case forms of its words (maximal runs of letters), NFC, and
 * {@link NUMBER} for each run of digits; Vietnamese in the project's tone placement
 * (vietnameseToneOnFirstVowel), so the lexicon proposes one style.
 */
export function formsOfLine(line: string, language: string): string[] {
  const us = units(language === 'vie' ? vietnameseToneOnFirstVowel(line) : line);
  return tokensOf(us).map((t) => (t.number ? NUMBER : us.slice(t.from, t.to).map((u) => formOf(u, language)).join('').normalize('NFC')));
}

/** The words of a line as {@link formsOfLine} writes them, without its numbers (the spelling model's and the lexicons' forms). */
export function wordsOfLine(line: string, language: string): string[] {
  return formsOfLine(line, language).filter((f) => f !== NUMBER);
}

/** A training line with its weight. */
export interface WeightedLine { text: string; weight: number; }

/**
 * The least (weighted) count of a bigram or trigram kept in the file, per language (ISO
 * 639-3), else {@link DEFAULT_MIN_COUNT}. Chosen on the news development set with each
 * language's tuned settings (diacnet-2.0, wrong words of the set with 1 against 2):
 * Vietnamese 846 against 955 (its words are syllables, and most compounds seen once are
 * real ones), French 421 against 440; with 1, Yorùbá (6,476 against 6,241), Igbo (734
 * against 697), Hausa and Portuguese got worse, and Polish, Turkish, Spanish and Italian
 * moved by at most 3 words for up to 1 MB more each, so they keep 2.
 */
export const MIN_COUNT: Readonly<Record<string, number>> = { vie: 1, fra: 1 };
/** The least count of a kept bigram or trigram for the other languages. */
export const DEFAULT_MIN_COUNT = 2;

/**
 * A marked letter is the language's when it is at least this share of the marked letters
 * of the training text's forms (by count): Spanish writes á é í ó ú ñ ü (ü 0.06 %), and
 * the à, ç and ō of a few foreign names (0.01 % and less) are not Spanish letters.
 */
export const MARKED_LETTER_SHARE = 2e-4;

/**
 * The least share of a key's GeoNames words that its chosen place-name form must have
 * ({@link chosenPlaceNames}). On the news development set (diacnet-2.0, name_bonus tuned):
 * Spanish 378 wrong words with 0.8, 379 with 0.6, 382 with 0.5, French 340 with each.
 */
export const PLACE_NAME_SHARE = 0.8;

/**
 * The marked letters (marks.ts units, as written, lower case) of a language: those that
 * are at least {@link MARKED_LETTER_SHARE} of the marked letters of its forms, each
 * form counted `count` times.
 */
export function markedLetters(forms: readonly string[], count: ArrayLike<number>): Set<string> {
  const n = new Map<string, number>();
  let total = 0;
  forms.forEach((f, i) => {
    const c = count[i]!;
    if (!(c > 0)) return;
    for (const u of units(f)) if (u.letter && u.marked) { n.set(u.text, (n.get(u.text) ?? 0) + c); total += c; }
  });
  return new Set([...n].filter(([, c]) => c >= MARKED_LETTER_SHARE * total).map(([u]) => u));
}

/**
 * One place-name form per key, for keys that `known` does not have (the decoder asks for
 * a name only where neither the training text nor a dictionary writes the word): the form
 * GeoNames writes most often among those whose marked letters are all the language's
 * (`letters`, {@link markedLetters}; "yūsuf" and "örebro" are no Spanish forms), when it
 * carries a mark and at least {@link PLACE_NAME_SHARE} of the key's words write it
 * ("apulia" is "Apúlia" in Brazil and "Apulia" elsewhere: no form).
 * @returns [key, form] pairs
 */
export function chosenPlaceNames(names: PlaceNameCounts, letters: ReadonlySet<string>, known: (key: string) => boolean): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const writable = (f: string) => units(f).every((u) => !u.letter || !u.marked || letters.has(u.text));
  for (const [key, forms] of names) {
    if (known(key)) continue;
    let total = 0;
    let best: string | null = null;
    let most = 0;
    for (const [f, c] of forms) {
      total += c;
      if (writable(f) && (c > most || (c === most && best !== null && f < best))) { best = f; most = c; }
    }
    if (best !== null && hasMarks(best) && most >= PLACE_NAME_SHARE * total) out.push([key, best]);
  }
  return out;
}

/** Ids are packed two to a number key: forms per language must stay below this. */
const ID_SPACE = 2 ** 22;

/**
 * The arrays of one language's model file (services/capabilities/diacritize/
 * word-lm-format.ts) from weighted training lines and lexicon entries. Counts are
 * weighted (lineWeight × the source's register weight, two decimals are plenty);
 * bigrams and trigrams counted less than `minCount` are left out, follower counts are
 * taken before that; the pair `<s> <s>` (the context of a text's first word) is always
 * kept. Frequency-list forms with a mark or in a dictionary that the text never wrote
 * join the tables with count 0; every form of the tables gets its dictionary flag and
 * frequency share; the other dictionary forms go to the `dict` lines, and the place
 * names ({@link chosenPlaceNames}) of keys neither has to the `names` lines.
 * @param tokenize a line's tokens (default: {@link formsOfLine}; the class model's are classes)
 * @param placeNames GeoNames' forms per key (diacritics-lexicons.ts placeNameCounts; default none)
 * @throws RangeError when a language has more than 4,194,304 forms, or a dictionary or place-name line is over 65,535 bytes
 */
export function buildLangArrays(lines: Iterable<WeightedLine>, language: string, lexicon: ReadonlyMap<string, LexiconEntry> = new Map(), minCount = 2, tokenize: (line: string, language: string) => string[] = formsOfLine, placeNames: PlaceNameCounts = new Map()): LangArrays {
  const ids = new Map<string, number>();
  const forms: string[] = [];
  const count: number[] = [];
  const idOf = (f: string) => {
    let i = ids.get(f);
    if (i === undefined) {
      i = forms.length;
      if (i >= ID_SPACE) throw new RangeError(`word LM ${language}: more than ${ID_SPACE} forms`);
      ids.set(f, i); forms.push(f); count.push(0);
    }
    return i;
  };
  const S = idOf(START); const E = idOf(END);
  const bi = new Map<number, number>(); // a * ID_SPACE + b → bigram index
  const biA: number[] = []; const biB: number[] = []; const biC: number[] = [];
  const biIndex = (a: number, b: number) => {
    const k = a * ID_SPACE + b;
    let j = bi.get(k);
    if (j === undefined) { j = biA.length; bi.set(k, j); biA.push(a); biB.push(b); biC.push(0); }
    return j;
  };
  const tri = new Map<number, number>(); // bigram index * ID_SPACE + c → count
  let tokens = 0;
  for (const { text, weight: w } of lines) {
    if (!(w > 0)) continue;
    count[S]! += w;
    biC[biIndex(S, S)]! += w;
    let prev2 = S; let prev = S;
    for (const f of [...tokenize(text, language).map(idOf), E]) {
      count[f]! += w;
      tokens += w;
      biC[biIndex(prev, f)]! += w;
      const t = biIndex(prev2, prev) * ID_SPACE + f;
      tri.set(t, (tri.get(t) ?? 0) + w);
      prev2 = prev; prev = f;
    }
  }
  // forms of the frequency list join the tables when they carry a mark or a dictionary writes them
  for (const [f, e] of lexicon) if (e.prior > 0 && (e.lexicon === 1 || hasMarks(f))) idOf(f);
  // distinct next forms of each form and of each pair of forms, before pruning
  const followers = new Uint32Array(forms.length);
  biA.forEach((a, j) => { if (!(a === S && biB[j] === S)) followers[a]!++; });
  const pairFollowers = new Uint32Array(biA.length);
  for (const k of tri.keys()) pairFollowers[Math.floor(k / ID_SPACE)]!++;

  // ids by sorted UTF-8 bytes
  const bytes = forms.map((f) => Buffer.from(f, 'utf8'));
  const order = forms.map((_, i) => i).sort((x, y) => Buffer.compare(bytes[x]!, bytes[y]!));
  const rank = new Uint32Array(forms.length);
  order.forEach((old, r) => { rank[old] = r; });
  const n = forms.length;
  const blob = (list: Buffer[]) => {
    const start = new Uint32Array(list.length + 1);
    let at = 0;
    list.forEach((b, i) => { start[i] = at; at += b.length + 1; });
    start[list.length] = at;
    const out = new Uint8Array(at).fill(0x0a);
    list.forEach((b, i) => out.set(b, start[i]!));
    return { out, start };
  };
  const f = blob(order.map((i) => bytes[i]!));
  const a: Partial<LangArrays> = { tokens: Math.round(tokens * 100) / 100, forms: f.out, formStart: f.start };
  a.count = Float32Array.from(order, (i) => count[i]!);
  a.followers = Uint32Array.from(order, (i) => followers[i]!);
  a.lexicon = Uint8Array.from(order, (i) => lexicon.get(forms[i]!)?.lexicon ?? 0);
  a.prior = Float32Array.from(order, (i) => lexicon.get(forms[i]!)?.prior ?? 0);

  // keys: forms grouped by key, most frequent first (count, then dictionary, then frequency share)
  const byKey = new Map<string, number[]>();
  for (let r = 0; r < n; r++) {
    const form = forms[order[r]!]!;
    if (form === START || form === END) continue;
    const k = keyOf(form);
    const list = byKey.get(k);
    if (list) list.push(r); else byKey.set(k, [r]);
  }
  const keyList = [...byKey.keys()].map((k) => Buffer.from(k, 'utf8')).sort(Buffer.compare);
  const kb = blob(keyList);
  a.keys = kb.out; a.keyStart = kb.start;
  a.keyFormStart = new Uint32Array(keyList.length + 1);
  const keyForms: number[] = [];
  keyList.forEach((k, i) => {
    a.keyFormStart![i] = keyForms.length;
    const list = byKey.get(k.toString('utf8'))!;
    list.sort((x, y) => a.count![y]! - a.count![x]! || a.lexicon![y]! - a.lexicon![x]! || a.prior![y]! - a.prior![x]!);
    keyForms.push(...list);
  });
  a.keyFormStart[keyList.length] = keyForms.length;
  a.keyForms = Uint32Array.from(keyForms);

  // bigrams kept, by (previous, next) rank
  const keptBi = biA.map((_, j) => j).filter((j) => biC[j]! >= minCount || (biA[j] === S && biB[j] === S));
  keptBi.sort((x, y) => rank[biA[x]!]! - rank[biA[y]!]! || rank[biB[x]!]! - rank[biB[y]!]!);
  const biPos = new Map<number, number>(keptBi.map((j, p) => [j, p]));
  a.biStart = new Uint32Array(n + 1);
  for (const j of keptBi) a.biStart[rank[biA[j]!]! + 1]!++;
  for (let r = 0; r < n; r++) a.biStart[r + 1]! += a.biStart[r]!;
  a.biNext = Uint32Array.from(keptBi, (j) => rank[biB[j]!]!);
  a.biCount = Float32Array.from(keptBi, (j) => biC[j]!);
  a.biFollowers = Uint32Array.from(keptBi, (j) => pairFollowers[j]!);
  // trigrams kept, by (bigram position, next rank)
  const keptTri: Array<[number, number, number]> = [];
  for (const [k, c] of tri) {
    if (c < minCount) continue;
    const p = biPos.get(Math.floor(k / ID_SPACE));
    if (p !== undefined) keptTri.push([p, rank[k % ID_SPACE]!, c]);
  }
  keptTri.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  a.triStart = new Uint32Array(keptBi.length + 1);
  for (const [p] of keptTri) a.triStart[p + 1]!++;
  for (let p = 0; p < keptBi.length; p++) a.triStart[p + 1]! += a.triStart[p]!;
  a.triNext = Uint32Array.from(keptTri, (t) => t[1]);
  a.triCount = Float32Array.from(keptTri, (t) => t[2]);
  // dictionary forms the tables lack, one line per key
  const dictByKey = new Map<string, string[]>();
  a.lexiconForms = 0;
  for (const [form, e] of lexicon) {
    if (e.lexicon !== 1) continue;
    a.lexiconForms++;
    if (ids.has(form)) continue;
    const k = keyOf(form);
    const list = dictByKey.get(k);
    if (list) list.push(form); else dictByKey.set(k, [form]);
  }
  /** `key\tform…\n` lines sorted by their bytes, and each line's length (word-lm-format.ts `dict`, `names`) */
  const lineBlob = (entries: Iterable<[string, readonly string[]]>, what: string): [Uint8Array, Uint16Array] => {
    const ls = [...entries].map(([k, fs]) => Buffer.from(`${k}\t${fs.join('\t')}\n`, 'utf8')).sort(Buffer.compare);
    return [new Uint8Array(Buffer.concat(ls)), Uint16Array.from(ls, (b) => { if (b.length > 0xffff) throw new RangeError(`word LM ${language}: a ${what} line of ${b.length} bytes`); return b.length; })];
  };
  [a.dict, a.dictLen] = lineBlob(dictByKey, 'dictionary');
  // place names of keys neither the tables nor a dictionary write
  [a.names, a.namesLen] = lineBlob(chosenPlaceNames(placeNames, markedLetters(forms, count), (k) => byKey.has(k) || dictByKey.has(k)).map(([k, f]) => [k, [f]]), 'place-name');
  return a as LangArrays;
}

/** The uncompressed model file for the given weighted lines (and lexicons, and place names) per language (tests use unweighted lines: weight 1). */
export function buildWordLm(lines: ReadonlyMap<string, ReadonlyArray<WeightedLine | string>>, lexicons: ReadonlyMap<string, ReadonlyMap<string, LexiconEntry>> = new Map(), minCount = 2, placeNames: ReadonlyMap<string, PlaceNameCounts> = new Map()): Buffer {
  const langs = new Map<string, LangArrays>();
  for (const [lang, ls] of lines) langs.set(lang, buildLangArrays(ls.map((l) => (typeof l === 'string' ? { text: l, weight: 1 } : l)), lang, lexicons.get(lang), minCount, formsOfLine, placeNames.get(lang)));
  return encodeWordLm(langs);
}

/**
 * The training lines of every language (role `train`, scripts/diacritics-data.ts: neither
 * the held-out split nor the news development set), weighted by lineWeight × the register
 * weight of their source.
 */
export function trainingLines(root = CORPORA, maxLines = Infinity): Map<string, WeightedLine[]> {
  const out = new Map<string, WeightedLine[]>();
  for (const lang of Object.keys(DIACRITICS_SOURCES)) {
    out.set(lang, linesOf(lang, root).filter((l) => l.role === 'train').slice(0, maxLines).map((l) => ({ text: l.text, weight: lineWeight(l.text, lang) * registerWeight(l.source) })));
  }
  return out;
}

/**
 * The arrays of every language of the model file: its weighted lines, its lexicon, and the
 * least count of its kept n-grams from {@link MIN_COUNT}.
 * @param lexiconOf a language's lexicon entries (scripts/diacritics-lexicons.ts lexiconOf)
 * @param report called after each language (its arrays, lines and milliseconds)
 * @param placeNamesOf a language's GeoNames forms (diacritics-lexicons.ts placeNameCounts; default none)
 */
export function buildLanguages(lines: ReadonlyMap<string, readonly WeightedLine[]>, lexiconOf: (language: string) => ReadonlyMap<string, LexiconEntry>, report?: (language: string, arrays: LangArrays, lines: number, ms: number) => void, placeNamesOf: (language: string) => PlaceNameCounts = () => new Map()): Map<string, LangArrays> {
  const langs = new Map<string, LangArrays>();
  for (const [lang, ls] of lines) {
    const t0 = Date.now();
    const a = buildLangArrays(ls, lang, lexiconOf(lang), MIN_COUNT[lang] ?? DEFAULT_MIN_COUNT, formsOfLine, placeNamesOf(lang));
    langs.set(lang, a);
    report?.(lang, a, ls.length, Date.now() - t0);
  }
  return langs;
}

/**
 * The languages whose part of the word model holds GeoNames' place names
 * ({@link chosenPlaceNames}; the decoder's `name_bonus`): those whose `name_bonus`, tuned
 * on the news development set (scripts/tune-word-lm.ts) with the names of all ten
 * languages of Latin script, came out above 0 for a diacnet model: Spanish, French and
 * Igbo (docs/diacritics.md). In the seven others it stayed 0 for both (their parts held
 * 1,216–9,645 names each).
 */
export const PLACE_NAME_LANGUAGES: ReadonlySet<string> = new Set(['ibo', 'spa', 'fra']);

/**
 * The languages the word-class model is built for: those whose `class_weight`, tuned on
 * the development set (scripts/tune-word-lm.ts: news; Arabic, half of its held-out split),
 * came out above 0 for a diacnet model (docs/diacritics.md). Hausa (the weight stayed 0)
 * is left out, Vietnamese too (its words are syllables, nearly all of them classes of their
 * own: a 9.9 MB copy of the word model that left its 846 wrong news words as they were).
 */
export const CLASS_LANGUAGES: ReadonlySet<string> = new Set(['yor', 'ibo', 'pol', 'tur', 'por', 'spa', 'fra', 'ita', 'ara']);

/**
 * The arrays of each language of the word-class model's file (word-lm.ts wordClass;
 * the file has the word model's layout, its "forms" being classes): the same weighted
 * lines, each word replaced by its class, every n-gram kept (a class trigram model is
 * small: about 200,000 trigrams per language with 2-letter endings), no lexicon.
 * @param suffix letters of a form's ending that name its class (word-lm.ts DEFAULT_CLASS_SUFFIX)
 * @param languages the languages built (default {@link CLASS_LANGUAGES}); the lines of the others are skipped
 */
export function buildClassLanguages(lines: ReadonlyMap<string, readonly WeightedLine[]>, suffix = DEFAULT_CLASS_SUFFIX, languages: ReadonlySet<string> = CLASS_LANGUAGES): Map<string, LangArrays> {
  const langs = new Map<string, LangArrays>();
  for (const [lang, ls] of lines) if (languages.has(lang)) langs.set(lang, buildLangArrays(ls, lang, new Map(), 0, (line, l) => formsOfLine(line, l).map((f) => wordClass(f, suffix, l))));
  return langs;
}

/**
 * The languages the spelling model is built for: those whose `spelling_weight`, tuned on
 * the news development set (scripts/tune-word-lm.ts), came out above 0 for one of the two
 * diacnet models (docs/diacritics.md). Not Vietnamese (0 for both: its unknown syllables
 * are foreign words and names; its part was 1.6 MB). Arabic (its development half of the
 * held-out split, diacritics-data.ts HELD_OUT_DEV_LANGUAGES): a 0.4 MB part, no dictionary;
 * diacnet-2.0's DER with case endings there 3.42 → 3.35 %, the mini's 3.49 → 3.42.
 */
export const SPELLING_LANGUAGES: ReadonlySet<string> = new Set(['yor', 'ibo', 'hau', 'pol', 'tur', 'por', 'spa', 'fra', 'ita', 'ara']);

/**
 * The arrays of each language's spelling model (scripts/spelling-lm.ts): the forms of
 * its weighted training lines, of its frequency list and of its Hunspell dictionary.
 * @param dictionaryForms a language's dictionary forms (diacritics-lexicons.ts hunspellWords; none for a language built without)
 * @param languages the languages built (default {@link SPELLING_LANGUAGES})
 */
export function buildSpellingLanguages(lines: ReadonlyMap<string, readonly WeightedLine[]>, dictionaryForms: (language: string) => Iterable<string>, root = CORPORA, languages: ReadonlySet<string> = SPELLING_LANGUAGES): Map<string, SpellingArrays> {
  const out = new Map<string, SpellingArrays>();
  for (const [lang, ls] of lines) if (languages.has(lang)) out.set(lang, buildSpellingArrays(spellingForms(textFormCounts(ls, lang, wordsOfLine), frequencyShares(lang, root), dictionaryForms(lang))));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: a } = parseArgs({ options: { out: { type: 'string' }, 'class-out': { type: 'string' }, 'spelling-out': { type: 'string' }, corpora: { type: 'string' }, 'max-lines': { type: 'string' }, hunspell: { type: 'string', default: Object.keys(HUNSPELL).join(',') }, 'place-names': { type: 'string', default: [...PLACE_NAME_LANGUAGES].join(',') } } });
  if (!a.out && !a['class-out'] && !a['spelling-out']) throw new Error('--out, --class-out or --spelling-out is required');
  const root = a.corpora ?? CORPORA;
  const lines = trainingLines(root, a['max-lines'] ? Number(a['max-lines']) : Infinity);
  const hun = new Set(a.hunspell!.split(',').filter(Boolean));
  if (a['spelling-out']) {
    const t0 = Date.now();
    const langs = buildSpellingLanguages(lines, (lang) => (hun.has(lang) ? hunspellWords(lang) : []), root);
    for (const [lang, s] of langs) console.log(`spelling ${lang}: ${s.alphabet.length} symbols, ${s.histKey.length} histories, ${s.gramKey.length} n-grams`);
    const packed = packSpellingLm(langs);
    writeFileSync(a['spelling-out'], packed);
    console.log(`wrote ${a['spelling-out']}: ${(packed.length / 1e6).toFixed(1)} MB (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  if (a['class-out']) {
    const packed = packWordLm(buildClassLanguages(lines));
    writeFileSync(a['class-out'], packed);
    console.log(`wrote ${a['class-out']}: ${(packed.length / 1e6).toFixed(1)} MB`);
  }
  if (!a.out) process.exit(0);
  const named = new Set(a['place-names']!.split(',').filter(Boolean));
  const langs = buildLanguages(lines, (lang) => lexiconOf(lang, { hunspell: hun.has(lang), root }), (lang, l, ls, ms) => {
    console.log(`${lang}: ${ls} lines, ${l.count.length} forms (${l.lexicon.reduce((n, x) => n + x, 0)} from a dictionary), ${l.biNext.length} bigrams, ${l.triNext.length} trigrams (kept from count ${MIN_COUNT[lang] ?? DEFAULT_MIN_COUNT}), ${l.namesLen.length} place names, ${(ms / 1000).toFixed(0)} s`);
  }, (lang) => (named.has(lang) ? placeNameCounts(lang) : new Map()));
  const packed = packWordLm(langs);
  writeFileSync(a.out, packed);
  console.log(`wrote ${a.out}: ${(packed.length / 1e6).toFixed(1)} MB`);
}
