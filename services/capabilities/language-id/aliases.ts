/**
 * Labels that other systems and test sets use for a language the language-ID models
 * answer under another label (GET /v1/lid/models lists them). The service answers the
 * target label; a client comparing with FLORES-200 labels maps the alias to it.
 *
 * - `tzm_Tfng` → `zgh_Tfng`: FLORES-200 labels its Tifinagh Tamazight "Central Atlas
 *   Tamazight" (tzm); the written standard in Tifinagh is Standard Moroccan Tamazight
 *   (zgh, IRCAM), the label of the training text (NLLB-Seed, the UDHR). The same written
 *   language; `tzm_Latn` (Latin script, the UDHR) stays a label of its own.
 * - `aka_Latn` → `twi_Latn`: Akan (aka) is the macrolanguage (ISO 639-3) of which Twi
 *   (twi) is the written standard the training text is in (AfriSenti tweets, eBible, the
 *   UDHR's Akuapem and Asante translations, scripts/lid-data.ts HARMONISE). The legacy
 *   detect-language route still answers `aka`, one of its 25 languages.
 * - `zho_Hans` → `cmn_Hans`, `zho_Hant` → `cmn_Hant`, `est_Latn` → `ekk_Latn`,
 *   `grn_Latn` → `gug_Latn`: FLORES-200 labels these by the macrolanguage (Chinese,
 *   Estonian, Guarani); its text and the training text are in the individual language
 *   that is the written standard (Mandarin, Standard Estonian, Paraguayan Guarani). The
 *   service answers the individual language, as it does for every macrolanguage
 *   (SIL ISO 639-3 macrolanguage mappings); Cantonese (`yue_Hant`) stays its own label.
 */
export const LABEL_ALIASES: Readonly<Record<string, { label: string; reason: string }>> = {
  tzm_Tfng: { label: 'zgh_Tfng', reason: 'Central Atlas Tamazight in Tifinagh is written as Standard Moroccan Tamazight' },
  aka_Latn: { label: 'twi_Latn', reason: 'Akan (macrolanguage) is written as Twi, its individual language' },
  zho_Hans: { label: 'cmn_Hans', reason: 'Chinese (macrolanguage) in simplified characters is written as Mandarin, its individual language' },
  zho_Hant: { label: 'cmn_Hant', reason: 'Chinese (macrolanguage) in traditional characters is written as Mandarin; written Cantonese is yue_Hant' },
  est_Latn: { label: 'ekk_Latn', reason: 'Estonian (macrolanguage) is written as Standard Estonian, its individual language' },
  grn_Latn: { label: 'gug_Latn', reason: 'Guarani (macrolanguage) is written as Paraguayan Guarani, its individual language' },
};

/** One alias as GET /v1/lid/models lists it. */
export interface LabelAlias { alias: string; label: string; reason: string; }

/** The aliases of {@link LABEL_ALIASES} as a list, in a fixed order (alias label, ascending). */
export function labelAliases(): LabelAlias[] {
  return Object.entries(LABEL_ALIASES).sort(([a], [b]) => (a < b ? -1 : 1)).map(([alias, { label, reason }]) => ({ alias, label, reason }));
}
