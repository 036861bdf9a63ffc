/**
 * The words of a text as language ID's later stages read them (the second stage of
 * confusable clusters, ./clusters.ts, and the word-frequency stage, ./vocabulary.ts):
 * lower case, NFC, Arabic harakat removed, Han read character by character.
 */
import { fnv1a } from './features.ts';

/** Longest prefix of a text the later stages read (UTF-16 code units). */
export const MAX_WORD_TEXT = 2000;

/** Tokenizer classes of UTF-16 code units: a word break, a word character, dropped, Han. */
const BREAK = 0, WORD = 1, DROPPED = 2, HAN = 3;
let classTable: Uint8Array | undefined;
/**
 * The class of every UTF-16 code unit, built once (65,536 regular-expression tests, about
 * 20 ms): letters and marks (Unicode L, M) are word characters, Han (Unicode Script=Han)
 * is HAN, Arabic harakat (U+064B–U+065F), superscript alef (U+0670) and tatweel (U+0640)
 * are dropped (written in some texts and not in others), surrogates are word characters
 * (letters outside the Basic Multilingual Plane are rare in the clusters' languages), the
 * rest breaks words.
 */
function classes(): Uint8Array {
  if (classTable) return classTable;
  const t = new Uint8Array(0x10000);
  const word = /[\p{L}\p{M}]/u, han = /\p{Script=Han}/u;
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) t[c] = WORD;
    else if ((c >= 0x64b && c <= 0x65f) || c === 0x670 || c === 0x640) t[c] = DROPPED;
    else { const ch = String.fromCharCode(c); t[c] = han.test(ch) ? HAN : word.test(ch) ? WORD : BREAK; }
  }
  return (classTable = t);
}

/** What the tokenizer reports: a word (with the word before it, or null) or a Han character (with the Han character before it in the run, or ''). */
export interface TokenSink { word(word: string, prev: string | null): void; han(ch: string, prevHan: string): void; }

/**
 * Tokenizes a text for the later stages (the clusters' features are clusterFeatures in ./clusters.ts):
 * lower case, NFC, Arabic harakat removed; words are runs of word characters, and the
 * word before a word is remembered across punctuation; a run of Han characters (no
 * spaces between words) is read character by character and ends the word pairs.
 * Table-driven rather than a regular expression per word: the second stage runs on the
 * batch route's hot path (`npm run bench:lid` speed rows).
 * @param text any text; only its first 2,000 UTF-16 code units are read
 */
export function tokenize(text: string, sink: TokenSink): void {
  const C = classes();
  const s = (text.length > MAX_WORD_TEXT ? text.slice(0, MAX_WORD_TEXT) : text).normalize('NFC').toLowerCase();
  const n = s.length;
  let prev: string | null = null;
  let word = '', segStart = -1, lastHan = '';
  for (let i = 0; i <= n; i++) {
    const cls = i < n ? C[s.charCodeAt(i)]! : BREAK;
    if (cls === WORD) { if (segStart < 0) segStart = i; lastHan = ''; continue; }
    if (cls === DROPPED) { if (segStart >= 0) { word += s.slice(segStart, i); segStart = -1; } continue; }
    // a break or a Han character ends the word
    if (segStart >= 0) { word += s.slice(segStart, i); segStart = -1; }
    if (word.length > 0) { sink.word(word, prev); prev = word; word = ''; }
    if (cls === HAN) {
      const ch = s[i]!;
      sink.han(ch, lastHan);
      lastHan = ch;
      prev = null;
    } else lastHan = '';
  }
}

/**
 * The FNV-1a hash ({@link fnv1a}, 32 bits) of every word {@link tokenize} reports, in order,
 * computed while the text is scanned: the same numbers as `fnv1a(word, seed)` for each word,
 * without making the words' strings (the word-frequency stage looks every word up by hash
 * on the batch route's hot path; a string per word is an allocation per word).
 * @param text any text; only its first {@link MAX_WORD_TEXT} UTF-16 code units are read
 * @param seed the hash's seed
 * @param each called with each word's hash (an unsigned 32-bit integer)
 */
export function wordHashes(text: string, seed: number, each: (hash: number) => void): void {
  const C = classes();
  const s = (text.length > MAX_WORD_TEXT ? text.slice(0, MAX_WORD_TEXT) : text).normalize('NFC').toLowerCase();
  const n = s.length;
  const start = seed >>> 0;
  let h = start, inWord = false;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 32;
    const cls = C[c]!;
    if (cls === WORD) { h = Math.imul(h ^ c, 0x01000193) >>> 0; inWord = true; continue; }
    if (cls === DROPPED) continue;
    if (inWord) { each(h); h = start; inWord = false; }
  }
}
