/**
 * Unicode script detection for language identification.
 *
 * Script codes are ISO 15924 four-letter codes. JavaScript regular expressions accept
 * those codes as Unicode Script property value aliases (`\p{sc=Latn}`), so the
 * Unicode Character Database shipped with V8 is the source of truth here (Unicode
 * Standard Annex #24, "Unicode Script Property").
 */

/** ISO 15924 codes that are also Unicode Script property aliases and that we count. */
export const UNICODE_SCRIPTS: readonly string[] = [
  'Latn', 'Cyrl', 'Arab', 'Grek', 'Hebr', 'Deva', 'Beng', 'Guru', 'Gujr', 'Orya', 'Taml',
  'Telu', 'Knda', 'Mlym', 'Sinh', 'Thai', 'Laoo', 'Tibt', 'Mymr', 'Geor', 'Armn', 'Ethi',
  'Khmr', 'Mong', 'Hani', 'Hira', 'Kana', 'Hang', 'Thaa', 'Syrc', 'Tfng', 'Cher', 'Cans',
  'Nkoo', 'Vaii', 'Yiii', 'Bopo', 'Olck', 'Tale', 'Bali', 'Java', 'Sund', 'Bugi', 'Copt',
  'Glag', 'Ogam', 'Runr', 'Adlm', 'Bamu', 'Brai', 'Cakm', 'Mtei', 'Samr', 'Saur', 'Lepc',
  'Limb', 'Tavt', 'Talu', 'Lana', 'Kali', 'Rjng', 'Sylo', 'Osge', 'Wcho', 'Gong', 'Hmng',
];

const SCRIPT_REGEXES: ReadonlyArray<[string, RegExp]> = UNICODE_SCRIPTS.map(
  (code) => [code, new RegExp(`\\p{sc=${code}}`, 'u')] as [string, RegExp],
);

const LETTER = /[\p{L}\p{M}]/u;

/** ISO 15924 code of "no language" (undetermined / not applicable). */
export const NO_SCRIPT = 'Zxxx';

/**
 * Counts the letters of `text` per Unicode script.
 * @param text any string; only letters (\p{L}) and marks (\p{M}) are counted
 * @returns map of ISO 15924 code to count of code points; scripts not in
 *   {@link UNICODE_SCRIPTS} are counted under `Zyyy` (other)
 */
export function scriptCounts(text: string): Map<string, number> {
  const counts = new Int32Array(NAMES.length);
  let any = false;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    let k: number;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      cp = text.codePointAt(i)!;
      i++;
      k = classify(String.fromCodePoint(cp));
    } else {
      k = BMP_SCRIPT[cp]!;
      if (k === 0) { k = classify(String.fromCharCode(cp)); BMP_SCRIPT[cp] = k; }
    }
    if (k > 1) { counts[k]!++; any = true; }
  }
  const out = new Map<string, number>();
  if (any) for (let k = 2; k < NAMES.length; k++) if (counts[k]! > 0) out.set(NAMES[k]!, counts[k]!);
  return out;
}

/** Script names by index: 0 = not looked up, 1 = not counted, then UNICODE_SCRIPTS, then Zyyy. */
const NAMES = ['', '', ...UNICODE_SCRIPTS, 'Zyyy'];
/** Script index ({@link NAMES}) of each BMP code point, filled on first sight. */
const BMP_SCRIPT = new Uint8Array(0x10000);

/** Index in {@link NAMES} of one character: 1 when it is not counted. */
function classify(ch: string): number {
  if (!LETTER.test(ch)) return 1;
  for (let k = 0; k < SCRIPT_REGEXES.length; k++) if (SCRIPT_REGEXES[k]![1].test(ch)) return k + 2;
  return /\p{sc=Zinh}/u.test(ch) ? 1 : NAMES.length - 1; // combining marks inherit the base letter's script
}

/**
 * The dominant script of a text in the form used in labels: Han text becomes `Hani`,
 * Japanese kana (with or without Han) `Jpan`, Hangul (with or without Han) `Hang`.
 * @returns ISO 15924 code, or {@link NO_SCRIPT} when the text has no letters
 */
export function dominantScript(text: string): string {
  const counts = scriptCounts(text);
  if (counts.size === 0) return NO_SCRIPT;
  const kana = (counts.get('Hira') ?? 0) + (counts.get('Kana') ?? 0);
  if (kana > 0) return 'Jpan';
  if ((counts.get('Hang') ?? 0) > 0) return 'Hang';
  let best = NO_SCRIPT;
  let bestCount = 0;
  for (const [code, n] of counts) if (n > bestCount) { best = code; bestCount = n; }
  return best;
}

/**
 * The Unicode scripts a label's script stands for: `Hans`/`Hant` are written in Han
 * (`Hani`), `Jpan` in Han and kana; Korean labels (`Hang`, `Kore`) need Hangul.
 * @param labelScript ISO 15924 code as used in labels
 */
export function unicodeScriptsOf(labelScript: string): readonly string[] {
  switch (labelScript) {
    case 'Hans': case 'Hant': return ['Hani'];
    case 'Jpan': return ['Hira', 'Kana', 'Hani'];
    case 'Kore': case 'Hang': return ['Hang'];
    default: return [labelScript];
  }
}

/** True when the text has at least one letter (\p{L}). */
export function hasLetters(text: string): boolean {
  return /\p{L}/u.test(text);
}
