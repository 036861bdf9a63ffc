/**
 * The language table several capabilities share: the 25 question-generation languages
 * (spec: GET /v1/languages), which are also the languages of the legacy detect-language
 * route and the names language ID answers with. Codes: ISO 639-3 (macrolanguage code
 * where the language is a macrolanguage) and ISO 639-1; names in English (ISO 639-3
 * reference names, with the common name in parentheses where it differs).
 * `individual` lists the ISO 639-3 individual languages that language-ID labels use
 * for a macrolanguage (SIL ISO 639-3 macrolanguage mappings).
 */
export interface QgLanguage {
  /** ISO 639-3 */
  code: string;
  /** ISO 639-1, where one exists */
  code2: string | null;
  name: string;
  /** other names accepted in the `language` field (case-insensitive) */
  aliases: string[];
  /** ISO 639-3 individual-language codes that belong to this language */
  individual: string[];
}

export const QG_LANGUAGES: readonly QgLanguage[] = [
  { code: 'eng', code2: 'en', name: 'English', aliases: [], individual: [] },
  { code: 'fra', code2: 'fr', name: 'French', aliases: ['français'], individual: [] },
  { code: 'por', code2: 'pt', name: 'Portuguese', aliases: ['português'], individual: [] },
  { code: 'ara', code2: 'ar', name: 'Arabic', aliases: [], individual: ['arb', 'ary', 'arz', 'apc', 'ajp', 'acm', 'aeb', 'arq', 'ars', 'apd', 'acq', 'ayl', 'afb'] },
  { code: 'swa', code2: 'sw', name: 'Swahili', aliases: ['kiswahili'], individual: ['swh', 'swc'] },
  { code: 'hau', code2: 'ha', name: 'Hausa', aliases: [], individual: [] },
  { code: 'yor', code2: 'yo', name: 'Yoruba', aliases: ['yorùbá'], individual: [] },
  { code: 'ibo', code2: 'ig', name: 'Igbo', aliases: [], individual: [] },
  { code: 'amh', code2: 'am', name: 'Amharic', aliases: [], individual: [] },
  { code: 'zul', code2: 'zu', name: 'Zulu', aliases: ['isizulu'], individual: [] },
  { code: 'xho', code2: 'xh', name: 'Xhosa', aliases: ['isixhosa'], individual: [] },
  { code: 'som', code2: 'so', name: 'Somali', aliases: [], individual: [] },
  { code: 'orm', code2: 'om', name: 'Oromo', aliases: ['afaan oromoo'], individual: ['gaz', 'hae', 'orc', 'gax'] },
  { code: 'tir', code2: 'ti', name: 'Tigrinya', aliases: [], individual: [] },
  { code: 'kin', code2: 'rw', name: 'Kinyarwanda', aliases: [], individual: [] },
  { code: 'sna', code2: 'sn', name: 'Shona', aliases: ['chishona'], individual: [] },
  { code: 'afr', code2: 'af', name: 'Afrikaans', aliases: [], individual: [] },
  { code: 'aka', code2: 'ak', name: 'Twi', aliases: ['akan', 'asante twi', 'akuapem twi'], individual: ['twi', 'fat'] },
  { code: 'wol', code2: 'wo', name: 'Wolof', aliases: [], individual: [] },
  { code: 'lin', code2: 'ln', name: 'Lingala', aliases: [], individual: [] },
  { code: 'lug', code2: 'lg', name: 'Ganda', aliases: ['luganda'], individual: [] },
  { code: 'sot', code2: 'st', name: 'Southern Sotho', aliases: ['sesotho', 'sotho'], individual: [] },
  { code: 'tsn', code2: 'tn', name: 'Tswana', aliases: ['setswana'], individual: [] },
  { code: 'nya', code2: 'ny', name: 'Chichewa', aliases: ['nyanja', 'chewa'], individual: [] },
  { code: 'mlg', code2: 'mg', name: 'Malagasy', aliases: [], individual: ['plt', 'skg', 'bhr', 'tdx', 'txy', 'xmv', 'xmw', 'bmm', 'bzc', 'msh', 'tkg'] },
];

const BY_ANY = new Map<string, QgLanguage>();
for (const l of QG_LANGUAGES) {
  for (const k of [l.code, l.code2, l.name, ...l.aliases, ...l.individual]) if (k) BY_ANY.set(k.toLowerCase(), l);
}

/**
 * Finds one of the 25 languages from a 3-letter code, 2-letter code, English name,
 * alias or individual-language code (case-insensitive).
 * @returns the language, or undefined when it is not one of the 25
 */
export function findQgLanguage(value: string): QgLanguage | undefined {
  return BY_ANY.get(value.trim().toLowerCase());
}

/**
 * The `language_name` of a language-ID answer: the English name for the 25
 * question-generation languages (and their individual languages), the code otherwise.
 * @param code ISO 639-3 code
 */
export function languageName(code: string): string {
  const l = BY_ANY.get(code);
  return l && (l.code === code || l.individual.includes(code)) ? l.name : code;
}
