/**
 * The later stages' tokenizer (services/capabilities/language-id/words.ts): wordHashes
 * gives, for every text, the hashes of exactly the words tokenize reports, so that the
 * word-frequency stage (which looks words up by hash) reads the words its file was built
 * from (scripts/lid-vocabulary.ts hashes tokenize's words).
 */
import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../../services/capabilities/language-id/features.ts';
import { MAX_WORD_TEXT, tokenize, wordHashes } from '../../../services/capabilities/language-id/words.ts';

const SEED = 0x2545f491;
const viaStrings = (text: string) => { const out: number[] = []; tokenize(text, { word: (w) => out.push(fnv1a(w, SEED)), han: () => {} }); return out; };
const viaHashes = (text: string) => { const out: number[] = []; wordHashes(text, SEED, (h) => out.push(h)); return out; };

describe('wordHashes', () => {
  it('hashes the words tokenize reports, in order, on texts that test each class of character', () => {
    const texts = [
      '', '   ', 'Habari za asubuhi', 'ΚΑΛΗΜΈΡΑ κόσμε', 'İstanbul’da KIŞ',
      'كَتَبَ الوَلَدُ الدَّرْسَ', 'َكتب', 'كتب َ كتب', 'مـــرحبا', // harakat inside, before and alone; tatweel
      '我今晚想去看电影 and 中文abc字', 'e\u0301te\u0301 cafe\u0301', // Han between words; decomposed accents (NFC)
      '𐌲𐌿𐍄𐌰 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '123 4,5 — x', 'a-b_c.d', 'ŉ ǅemal', // surrogate pairs; digits and punctuation; characters that change length when lower-cased
    ];
    for (const text of texts) expect(viaHashes(text), text).toEqual(viaStrings(text));
  });
  it('reads the same first MAX_WORD_TEXT code units', () => {
    const long = 'słowo '.repeat(MAX_WORD_TEXT / 3);
    expect(viaHashes(long)).toEqual(viaStrings(long));
    expect(viaHashes(long).length).toBe(Math.ceil(MAX_WORD_TEXT / 6));
  });
  it('hashes as fnv1a with the seed given', () => {
    expect(viaHashes('Kerajaan, boleh!')).toEqual([fnv1a('kerajaan', SEED), fnv1a('boleh', SEED)]);
    expect(viaHashes('kerajaan')).not.toEqual([fnv1a('kerajaan', SEED + 1)]);
  });
});
