/**
 * The diacritization languages (spec: "Diacritization request", `language`): ISO 639-3
 * codes, with the ISO 639-1 codes the route also accepts.
 */

/** Accepted `language` values and the ISO 639-3 code (or `auto`, `ara-nocase`) each selects. */
export const DIACRITIZE_LANGUAGES: Readonly<Record<string, string>> = {
  yor: 'yor', ibo: 'ibo', hau: 'hau', vie: 'vie', pol: 'pol', tur: 'tur', por: 'por', spa: 'spa', fra: 'fra', ita: 'ita', ara: 'ara', 'ara-nocase': 'ara-nocase',
  yo: 'yor', ig: 'ibo', ha: 'hau', vi: 'vie', pl: 'pol', tr: 'tur', pt: 'por', es: 'spa', fr: 'fra', it: 'ita', ar: 'ara',
  auto: 'auto',
};

/** The languages GET /v1/models lists for the diacritization models (ISO 639-3). */
export const DIACRITIZE_CATALOG_LANGUAGES: readonly string[] = ['yor', 'ibo', 'hau', 'vie', 'pol', 'tur', 'por', 'spa', 'fra', 'ita', 'ara'];

/**
 * Languages that write a suffix after an apostrophe (Turkish "Ankara'da", "Gökhan'ın":
 * Türk Dil Kurumu, Yazım Kılavuzu, "Kesme işareti", which sets off the suffixes of a
 * proper name). The suffix's vowels follow the vowel harmony of the word before it, which
 * the character network sees across the apostrophe and a word-level model, taking the
 * suffix as a word of its own, does not.
 */
export const APOSTROPHE_SUFFIX_LANGUAGES: ReadonlySet<string> = new Set(['tur']);

/** The apostrophes that set off such a suffix: U+0027 and U+2019. */
const APOSTROPHES: ReadonlySet<string> = new Set(["'", '\u2019']);

/**
 * Whether the word that starts at unit `from` is a suffix set off by an apostrophe: the
 * language writes such suffixes ({@link APOSTROPHE_SUFFIX_LANGUAGES}) and the word follows
 * an apostrophe that follows a letter.
 */
export function isApostropheSuffix(language: string, us: readonly { base: string; letter: boolean }[], from: number): boolean {
  return APOSTROPHE_SUFFIX_LANGUAGES.has(language) && from >= 2 && APOSTROPHES.has(us[from - 1]!.base) && us[from - 2]!.letter;
}

/**
 * Languages whose suffixes and question particle take their vowels from the word before
 * them (vowel harmony): Turkish. A high vowel (ı, i, u, ü) of a suffix follows the last
 * vowel of its stem: after a or ı it is ı, after e or i it is i, after o or u it is u,
 * after ö or ü it is ü (Göksel & Kerslake 2005, Turkish: A Comprehensive Grammar, §2.2,
 * "vowel harmony"). Loanwords with a palatal final consonant ("saat'i", "Kemal'in") and
 * acronyms read letter by letter break the rule, so the decoder weighs it
 * (word-lm.ts `harmony_weight`) rather than obeys it.
 */
export const VOWEL_HARMONY_LANGUAGES: ReadonlySet<string> = new Set(['tur']);

/** The high vowel a suffix takes after each vowel (Turkish four-way harmony); â, î, û as a, i, u. */
const HIGH_AFTER: Readonly<Record<string, string>> = { a: 'ı', ı: 'ı', â: 'ı', e: 'i', i: 'i', î: 'i', o: 'u', u: 'u', û: 'u', ö: 'ü', ü: 'ü' };
/** The high vowels a harmony check looks at in a suffix. */
const HIGH: ReadonlySet<string> = new Set(['ı', 'i', 'u', 'ü']);
/** Every vowel letter of Turkish, marked or not. */
const VOWELS: ReadonlySet<string> = new Set(Object.keys(HIGH_AFTER));

/**
 * The high vowel a suffix takes after `form` (lower case, NFC): the {@link HIGH_AFTER}
 * of its last vowel; null when it has none ("SPK", read letter by letter).
 */
export function harmonyVowel(form: string): string | null {
  const cps = [...form];
  for (let i = cps.length - 1; i >= 0; i--) if (VOWELS.has(cps[i]!)) return HIGH_AFTER[cps[i]!]!;
  return null;
}

/**
 * The first vowel of a suffix or particle form (lower case, NFC) when it is a high vowel
 * (the one harmony decides); null when its first vowel is a, e, o or ö (whose marks, if
 * any, the harmony of the stem does not decide) or it has none.
 */
export function firstHighVowel(form: string): string | null {
  for (const c of form) if (VOWELS.has(c)) return HIGH.has(c) ? c : null;
  return null;
}

/**
 * A high vowel's letters by base (lower case, marks stripped): the back one and the front
 * one ("i": ı / i, "u": u / ü), the two forms a harmonic suffix can take.
 */
export const HIGH_VOWEL_PAIRS: Readonly<Record<string, readonly [back: string, front: string]>> = { i: ['ı', 'i'], u: ['u', 'ü'] };

/**
 * The question particle and its personal forms, by key (lower case, marks stripped): mı /
 * mi / mu / mü, mısın, mıyım, mıyız, mısınız, mıydı, mıymış (Göksel & Kerslake 2005,
 * §13.2.1). Written apart from the word it follows, it takes that word's harmony. "mudur"
 * is left out: its key is also the noun "müdür".
 */
const QUESTION_PARTICLE = /^m[iu](?:s[iu]n|y[iu]m|y[iu]z|s[iu]n[iu]z|yd[iu]|ym[iu]s)?$/;

/**
 * The letters (units [from, to)) of the word whose vowels the word at unit `from` follows
 * in a {@link VOWEL_HARMONY_LANGUAGES} language: for a suffix after an apostrophe
 * ({@link isApostropheSuffix}) the word before the apostrophe; for the question particle
 * (`key` its letters' bases) the word before it across spaces. Null for any other word.
 * `abbreviation`: the host is written in capitals (two letters or more), so its suffix
 * follows how it is read ("ABD'nin" as "a-be-de", "NATO'nun" as a word; Türk Dil Kurumu,
 * Yazım Kılavuzu, "Kısaltmalar"), which its letters do not say.
 */
export function harmonyHost(language: string, us: readonly { base: string; letter: boolean; upper: boolean }[], from: number, key: string): { from: number; to: number; abbreviation: boolean } | null {
  if (!VOWEL_HARMONY_LANGUAGES.has(language)) return null;
  let to: number;
  if (isApostropheSuffix(language, us, from)) to = from - 1;
  else if (QUESTION_PARTICLE.test(key)) {
    to = from;
    while (to > 0 && /^\s$/u.test(us[to - 1]!.base)) to--;
    if (to === from || to === 0 || !us[to - 1]!.letter) return null;
  } else return null;
  let start = to;
  while (start > 0 && us[start - 1]!.letter) start--;
  return { from: start, to, abbreviation: to - start >= 2 && us.slice(start, to).every((u) => u.upper) };
}
