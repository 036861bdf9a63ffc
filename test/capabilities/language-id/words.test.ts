/**
 * The later stages' tokenizer (services/capabilities/language-id/words.ts): scanWords
 * reports, for every text, the hashes of exactly the words tokenize reports and the same
 * Han characters, so that the stages that look words up by hash (clusters, word
 * frequencies) read the features their files were built from (the training scripts use
 * tokenize's strings).
 */
import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../../services/capabilities/language-id/features.ts';
import { MAX_WORD_TEXT, scanWords, tokenize, wordHashA, wordHashB } from '../../../services/capabilities/language-id/words.ts';

const viaStrings = (text: string) => {
  const out: string[] = [];
  tokenize(text, { word: (w) => out.push(`w ${wordHashA(w)} ${wordHashB(w)}`), han: (ch, prev) => out.push(`h ${ch.charCodeAt(0)} ${prev === '' ? 0 : prev.charCodeAt(0)}`) });
  return out;
};
const viaHashes = (text: string) => {
  const out: string[] = [];
  scanWords(text, { word: (a, b) => out.push(`w ${a} ${b}`), han: (c, p) => out.push(`h ${c} ${p}`) });
  return out;
};

describe('scanWords', () => {
  it('reports the words (hashed) and Han characters tokenize reports, in order, on texts that test each class of character', () => {
    const texts = [
      '', '   ', 'Habari za asubuhi', 'ΚΑΛΗΜΈΡΑ κόσμε', 'İstanbul’da KIŞ',
      'كَتَبَ الوَلَدُ الدَّرْسَ', 'َكتب', 'كتب َ كتب', 'مـــرحبا', // harakat inside, before and alone; tatweel
      '我今晚想去看电影 and 中文abc字', '佢哋،係 中\u064b文', 'e\u0301te\u0301 cafe\u0301', // Han between words, punctuation and a dropped mark; decomposed accents (NFC)
      '𐌲𐌿𐍄𐌰 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '123 4,5 — x', 'a-b_c.d', 'ŉ ǅemal', // surrogate pairs; digits and punctuation; characters that change length when lower-cased
    ];
    for (const text of texts) expect(viaHashes(text), text).toEqual(viaStrings(text));
  });
  it('reads the same first MAX_WORD_TEXT code units', () => {
    const long = 'słowo '.repeat(MAX_WORD_TEXT / 3);
    expect(viaHashes(long)).toEqual(viaStrings(long));
    expect(viaHashes(long).length).toBe(Math.ceil(MAX_WORD_TEXT / 6));
    expect(viaHashes(long + ' 中')).toEqual(viaStrings(long + ' 中'));
  });
  it('hashes a word first as FNV-1a with the word seed, and a second time otherwise', () => {
    expect(viaHashes('Kerajaan, boleh!')).toEqual([`w ${fnv1a('kerajaan', 0x2545f491)} ${wordHashB('kerajaan')}`, `w ${fnv1a('boleh', 0x2545f491)} ${wordHashB('boleh')}`]);
    const words = ['kerajaan', 'boleh', 'dan', 'a', 'b', 'ab', 'ba'];
    expect(new Set(words.map(wordHashB)).size).toBe(words.length);
    expect(words.map(wordHashB)).not.toEqual(words.map(wordHashA));
  });
});
