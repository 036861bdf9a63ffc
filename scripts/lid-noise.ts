/**
 * Two ways real text differs from the clean text the language-ID training data has, for
 * the training script's augmentation and its held-out rows:
 *
 * - **Diacritics left out**: people type on keyboards without their language's letters
 *   ("dung roi" for "đúng rồi", Yorùbá without tone marks, Greek without accents).
 *   {@link stripDiacritics} removes every combining mark after canonical decomposition
 *   (Unicode Standard Annex #15), so `ş` → `s` and `ọ̀` → `o`; letters that do not decompose
 *   (`ł`, `ø`, `ı`, `đ`) stay.
 * - **Legacy code page read as Windows-1252**: pages written in a Windows "ANSI" code page
 *   of another region and decoded as Western European, which web crawls still hold:
 *   Turkish `yılında` becomes `yýlýnda`, Polish `źródło` becomes `Ÿród³o`.
 *   {@link legacyMojibake} does that with iconv-lite's code page tables (MIT; the
 *   Unicode consortium's mappings). Node's own `TextDecoder('windows-1252')` is not used:
 *   Node 20 decodes it as ISO-8859-1 (C1 controls for 0x80–0x9F) and Node 24 as
 *   Windows-1252, which would make training depend on the Node version.
 *
 * The code page of each language is its Windows ANSI code page (Microsoft, "Code Page
 * Identifiers" and the National Language Support locale tables): 1250 Central European,
 * 1254 Turkish, 1257 Baltic. Languages of the Windows-1252 regions are not changed by
 * the round trip and have no entry.
 */
import iconv from 'iconv-lite';

/** Windows ANSI code page of a label whose letters Windows-1252 does not all hold. */
export const LEGACY_CODE_PAGE: Readonly<Record<string, 'windows-1250' | 'windows-1254' | 'windows-1257'>> = {
  ces_Latn: 'windows-1250', slk_Latn: 'windows-1250', pol_Latn: 'windows-1250', hun_Latn: 'windows-1250',
  slv_Latn: 'windows-1250', hrv_Latn: 'windows-1250', bos_Latn: 'windows-1250', srp_Latn: 'windows-1250',
  ron_Latn: 'windows-1250', als_Latn: 'windows-1250', hsb_Latn: 'windows-1250', dsb_Latn: 'windows-1250',
  tur_Latn: 'windows-1254', azj_Latn: 'windows-1254', uzn_Latn: 'windows-1254',
  lit_Latn: 'windows-1257', lvs_Latn: 'windows-1257', ekk_Latn: 'windows-1257',
};

/**
 * Scripts in which writing without the combining marks is common practice: Latin and
 * Greek typed without accents, and Arabic, which is written without short vowels
 * (harakat) except in the Qur'an, poetry and teaching texts. Standard Arabic's running
 * text (text/arb_Arab) is mostly fully vowelled classical prose, so without stripping web
 * Arabic read like the unvowelled NLLB-Seed dialect text (arz, ary): on lid-eval
 * sentences the model trained without it answered arb_Arab right 49 times in 100.
 */
const STRIPPABLE_SCRIPTS = new Set(['Latn', 'Grek', 'Arab']);

/**
 * The text without its combining marks (NFD, marks of general category Mn removed, NFC).
 * @param text any text
 * @returns the text with the same number of base characters; unchanged where it has no
 *   decomposable letters
 */
export function stripDiacritics(text: string): string {
  return text.normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC');
}


/** Per code page: character → its mojibake, filled as characters are met. */
const mojibakeTables = new Map<string, Map<string, string>>();

/**
 * The text as it reads when written in `codePage` and decoded as Windows-1252 (the
 * classic mojibake of a misdeclared charset). Characters the code page cannot encode are
 * kept as they are.
 * @param text NFC text
 * @param codePage an iconv-lite single-byte encoding name (`windows-1250`, `windows-1254`, ...)
 * @returns the mis-decoded text, same length in characters; equal to `text` when every
 *   character has the same byte in both code pages
 * @throws Error when iconv-lite does not know the encoding
 */
export function legacyMojibake(text: string, codePage: string): string {
  let table = mojibakeTables.get(codePage);
  if (!table) { table = new Map(); mojibakeTables.set(codePage, table); }
  let out = '';
  for (const ch of text.normalize('NFC')) {
    if (ch.charCodeAt(0) < 0x80) { out += ch; continue; }
    let m = table.get(ch);
    if (m === undefined) {
      const bytes = iconv.encode(ch, codePage);
      // iconv-lite writes '?' for a character the code page lacks: keep the character. A
      // byte Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) decodes to the
      // C1 control of that number, as the WHATWG Encoding Standard has browsers do.
      const decoded = bytes.length === 1 && bytes[0] !== 0x3f ? iconv.decode(bytes, 'windows-1252') : ch;
      m = decoded === '\uFFFD' ? String.fromCharCode(bytes[0]!) : decoded;
      table.set(ch, m);
    }
    out += m;
  }
  return out;
}

/**
 * A noisy variant of a training text of `label`: half of the time the legacy-code-page
 * mojibake where the label has a {@link LEGACY_CODE_PAGE} and that changes the text, else
 * the text without diacritics where the label's script is Latin, Greek or Arabic.
 * @param text a training text (NFC)
 * @param label model label, `ISO 639-3_ISO 15924` (`tur_Latn`)
 * @param r uniform random numbers in [0, 1) (seeded by the caller)
 * @returns the variant; `text` itself when neither changes it
 */
export function noisyVariant(text: string, label: string, r: () => number): string {
  const codePage = LEGACY_CODE_PAGE[label];
  if (codePage && r() < 0.5) {
    const m = legacyMojibake(text, codePage);
    if (m !== text) return m;
  }
  return strippable(label) ? stripDiacritics(text) : text;
}

/**
 * Whether a label's text can lose its diacritics in {@link noisyVariant} (Latin, Greek
 * or Arabic script).
 * @param label model label (`yor_Latn`)
 */
export function strippable(label: string): boolean {
  return STRIPPABLE_SCRIPTS.has(label.split('_')[1] ?? '');
}
