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
