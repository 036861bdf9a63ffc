/**
 * What counts as a mark for diacritic restoration (issue 13), and text cut into units:
 * a unit is a base character with the marks that follow it (a grapheme for the scripts
 * served), so that Yorùbá ẹ́ (e + dot below + acute, no precomposed form) is compared and
 * replaced whole, never code point by code point.
 *
 * Marks: every combining mark of the NFD form in the Combining Diacritical Marks blocks
 * (U+0300–U+036F, U+1AB0–U+1AFF, U+1DC0–U+1DFF: acute, grave, tilde, circumflex,
 * macron, dot below, hook above, horn, breve, cedilla, ogonek, caron, diaeresis, ring);
 * Arabic harakat, tanween, shadda and sukun (U+064B–U+0652) and the superscript alef
 * (U+0670); and the letters whose base has no decomposition: Polish ł, Turkish dotless ı
 * (dotted İ decomposes to I + U+0307), Vietnamese đ, Hausa ɓ ɗ ƙ ƴ (and ʼy, the other
 * spelling of ƴ). Arabic hamza and madda (U+0653–U+0655) belong to their letters and
 * are kept.
 */
import { BoundedMemo } from '../../lib/bounded-memo.ts';

/** Letters whose marked form has no decomposition, and their base (Unicode has no decomposition for these). */
const SPECIAL: Readonly<Record<string, string>> = {
  ł: 'l', Ł: 'L', ı: 'i', đ: 'd', Đ: 'D', ɓ: 'b', Ɓ: 'B', ɗ: 'd', Ɗ: 'D', ƙ: 'k', Ƙ: 'K', ƴ: 'y', Ƴ: 'Y',
};
const SPECIAL_RE = /[łŁıđĐɓƁɗƊƙƘƴƳ]/g;
/** The marks removed by {@link stripMarks} (in NFD). */
const MARK_RE = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u064b-\u0652\u0670]/g;
/** Any combining mark (Unicode general category M): what extends a unit. */
const COMBINING = /\p{M}/u;
/** U+02BC MODIFIER LETTER APOSTROPHE, written before y for Hausa ƴ. */
const HAUSA_APOSTROPHE = '\u02bc';

/** `s` without the marks of the module comment, NFC. */
export function stripMarks(s: string): string {
  return s.normalize('NFD').replace(MARK_RE, '').replace(SPECIAL_RE, (c) => SPECIAL[c]!).replace(/\u02bc(?=[yY])/g, '').normalize('NFC');
}

/** Whether `s` (a unit) carries a mark of the module comment. */
export const hasMarks = (s: string): boolean => stripMarks(s) !== s.normalize('NFC');

/** A unit of text: a base character with its marks. */
export interface Unit {
  /** the unit as written (NFC) */
  text: string;
  /** its base without marks, lower case (`ł` → `l`, `ʼy` → `y`, `بَ` → `ب`); other characters as they are */
  base: string;
  /** whether the unit's base is a letter (Unicode L) */
  letter: boolean;
  /** whether the base was upper case */
  upper: boolean;
  /** whether the unit carries a mark of the module comment */
  marked: boolean;
  /** the character context features see: the base for letters, `0` for digits, ` ` for white space, else the base */
  context: string;
}

/**
 * Cuts NFC text into units: each code point with the combining marks (Unicode M) that
 * follow it; `ʼy` is one unit.
 */
export function units(text: string): Unit[] {
  const s = text.normalize('NFC');
  const out: Unit[] = [];
  const cps = Array.from(s);
  for (let i = 0; i < cps.length; i++) {
    let u = cps[i]!;
    if (u === HAUSA_APOSTROPHE && (cps[i + 1] === 'y' || cps[i + 1] === 'Y')) u += cps[++i]!;
    while (i + 1 < cps.length && COMBINING.test(cps[i + 1]!)) u += cps[++i]!;
    out.push(unitOf(u));
  }
  return out;
}

/** Units by their text: a text has few distinct ones, and NFD/NFC per unit is the cost. */
const UNITS = new BoundedMemo<Unit>(50_000);
function unitOf(u: string): Unit {
  return UNITS.get(u, () => {
    const stripped = stripMarks(u);
    const lower = stripped.toLowerCase();
    const letter = /^\p{L}$/u.test(stripped);
    const base = letter ? lower : stripped;
    const context = letter ? base : /\p{N}/u.test(base) ? '0' : /\s/u.test(base) ? ' ' : base;
    return Object.freeze({ text: u, base, letter, upper: letter && lower !== stripped, marked: stripped !== u, context });
  });
}

/**
 * A unit's marked form in the case of the unit it replaces (`form` is lower case);
 * Turkish upper case follows the Turkish rules (i → İ, ı → I).
 */
export function inCase(form: string, upper: boolean, language: string): string {
  if (!upper) return form;
  return (language === 'tur' ? form.toLocaleUpperCase('tr-TR') : form.toUpperCase()).normalize('NFC');
}

/** The lower-case form of a unit as training text writes it (`ʼy` → `ƴ`, one spelling). */
export function formOf(u: Unit, language: string): string {
  const t = u.text === `${HAUSA_APOSTROPHE}y` || u.text === `${HAUSA_APOSTROPHE}Y` ? 'ƴ' : u.text;
  return (language === 'tur' ? t.toLocaleLowerCase('tr-TR') : t.toLowerCase()).normalize('NFC');
}

/** Spans that pass through unchanged: URLs, e-mail addresses and @handles (UTF-16 offsets, [start, end)). */
export function passThroughSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  // every span holds "@", "://" or "www.": most texts have none, and the search is then skipped
  if (!text.includes('@') && !text.includes('://') && !text.includes('www.')) return out;
  for (const m of text.matchAll(/\b(?:https?:\/\/|www\.)\S+|[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}|@\w+/gu)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** Vietnamese tone marks (NFD): grave, acute, tilde, hook above, dot below. */
const VIE_TONE = '[\u0300\u0301\u0303\u0309\u0323]';
/** An open syllable ending in oa, oe or uy with the tone on its last vowel (hoà, khoẻ, thuý), not after q. */
const VIE_NEW_STYLE = new RegExp(`(^|[^\\p{L}\\p{M}]|[^qQ\\p{M}aăâeêiîoôơuưyAĂÂEÊIOÔƠUƯY])([oO])([aAeE])(${VIE_TONE})(?![\\p{L}\\p{M}])|(^|[^\\p{L}\\p{M}]|[^qQ\\p{M}aăâeêioôơuưyAĂÂEÊIOÔƠUƯY])([uU])([yY])(${VIE_TONE})(?![\\p{L}\\p{M}])`, 'gu');

/**
 * Vietnamese text with the tone of open syllables ending in oa, oe, uy on the first vowel
 * (hòa, khỏe, thúy: the style the project writes, the training text's most common one;
 * docs/api-choices.md), from the other style (hoà, khoẻ, thuý). Syllables after `q`
 * (quý, quả: the u belongs to the consonant) and closed syllables (hoàn, thuyết) are
 * unchanged. Output NFC.
 */
export function vietnameseToneOnFirstVowel(text: string): string {
  return text.normalize('NFD').replace(VIE_NEW_STYLE, (_m, p1, o, ae, t1, p2, u, y, t2) => (o !== undefined ? `${p1}${o}${t1}${ae}` : `${p2}${u}${t2}${y}`)).normalize('NFC');
}
