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
