/**
 * The words of a text as language ID's later stages read them (the second stage of
 * confusable clusters, ./clusters.ts, and the word-frequency stage, ./vocabulary.ts):
 * lower case, NFC, Arabic harakat removed, Han read character by character.
 */
import { FNV_PRIME, fnv1a } from './features.ts';

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

/** Multiplier of Fibonacci hashing (2³² / golden ratio, odd: a bijection of 32-bit keys; Knuth, TAOCP vol. 3, 6.4). */
export const HOME_MIX = 0x9e3779b1;

/**
 * The first slot a key is looked for in an open-addressing table of `2^bits` slots
 * (Fibonacci hashing: the key's bits spread over the top `bits`); the tables of both later
 * stages (./clusters.ts, ./vocabulary.ts) probe linearly from it.
 */
export function homeSlot(key: number, bits: number): number {
  return Math.imul(key, HOME_MIX) >>> (32 - bits);
}

/** Seed of a word's first hash ({@link wordHashA}: FNV-1a, {@link fnv1a}); any value, fixed so that files and code agree. */
export const WORD_SEED_A = 0x2545f491;
/** Seed of a word's second hash ({@link wordHashB}). */
const WORD_SEED_B = 0x6a09e667;
/** Multiplier of the second hash (MurmurHash2's `m`, Appleby 2008): another odd constant than FNV's prime, so that the two hashes collide independently. */
const MULTIPLIER_B = 0x5bd1e995;

/** A word's first hash: FNV-1a of its UTF-16 code units with {@link WORD_SEED_A} (unsigned 32 bits). */
export function wordHashA(word: string): number {
  return fnv1a(word, WORD_SEED_A);
}

/** A word's second hash (unsigned 32 bits): `h = (h ^ c) · m` per UTF-16 code unit, as {@link scanWords} computes it. */
export function wordHashB(word: string): number {
  let h = WORD_SEED_B;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), MULTIPLIER_B) >>> 0;
  return h;
}

/** What {@link scanWords} reports, in text order. */
export interface WordSink {
  /** a word: its {@link wordHashA} and {@link wordHashB} */
  word(a: number, b: number): void;
  /** a Han character (its UTF-16 code unit) and the Han character just before it in the run, or 0 */
  han(code: number, prevCode: number): void;
}

/**
 * The words and Han characters {@link tokenize} reports, in the same order, as numbers:
 * each word's two hashes, computed while the text is scanned, and each Han character's
 * code unit, without making a string per word (the later stages look words up on the
 * batch route's hot path). `word(a, b)` for a word `w` is `(wordHashA(w), wordHashB(w))`;
 * `han(c, p)` is tokenize's `han(ch, prevHan)` with characters as code units (0 for '').
 * @param text any text; only its first {@link MAX_WORD_TEXT} UTF-16 code units are read
 */
export function scanWords(text: string, sink: WordSink): void {
  const C = classes();
  const s = (text.length > MAX_WORD_TEXT ? text.slice(0, MAX_WORD_TEXT) : text).normalize('NFC').toLowerCase();
  const n = s.length;
  let a = WORD_SEED_A, b = WORD_SEED_B, inWord = false, lastHan = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 32;
    const cls = C[c]!;
    if (cls === WORD) {
      a = Math.imul(a ^ c, FNV_PRIME) >>> 0;
      b = Math.imul(b ^ c, MULTIPLIER_B) >>> 0;
      inWord = true;
      lastHan = 0;
      continue;
    }
    if (cls === DROPPED) continue;
    // a break or a Han character ends the word
    if (inWord) { sink.word(a, b); a = WORD_SEED_A; b = WORD_SEED_B; inWord = false; }
    if (cls === HAN) { sink.han(c, lastHan); lastHan = c; } else lastHan = 0;
  }
}
