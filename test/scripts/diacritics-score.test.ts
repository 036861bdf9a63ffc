/**
 * How diacritic restoration is scored (scripts/diacritics-score.ts) and how its text is
 * split (scripts/diacritics-data.ts): both Vietnamese tone placements count as the same
 * restoration, words are compared position by position, Arabic DER counts with and
 * without case endings, and an NTREX file splits by position in each translation into
 * development, margin and training lines.
 */
import { describe, expect, it } from 'vitest';
import { der, wordScore, words } from '../../scripts/diacritics-score.ts';
import { ntrexRoles } from '../../scripts/diacritics-data.ts';

describe('diacritics scoring', () => {
  it('accepts both Vietnamese tone placements ("hòa" and "hoà", "thủy" and "thuỷ") on either side', () => {
    expect(wordScore('hòa bình, thủy điện', 'hoà bình, thuỷ điện', 'vie')).toEqual([4, 4]);
    expect(wordScore('hoà bình', 'hòa bình', 'vie')).toEqual([2, 2]);
    // a different tone is still an error, in either placement
    expect(wordScore('hòa bình', 'hóa bình', 'vie')).toEqual([1, 2]);
    expect(wordScore('hoà bình', 'hoá bình', 'vie')).toEqual([1, 2]);
    // "qu" is consonant + vowel: "quả" keeps its tone on the a in both styles
    expect(wordScore('quả', 'qủa', 'vie')).toEqual([0, 1]);
    // other languages compare exactly
    expect(wordScore('hòa', 'hoà', 'fra')).toEqual([0, 1]);
  });

  it('compares words (runs of letters) position by position, NFC', () => {
    expect(words('Zażółć gęślą, 2024 jaźń!')).toEqual(['Zażółć', 'gęślą', 'jaźń']);
    expect(wordScore('Zażółć gęślą jaźń', 'Zazółć gęślą jaźń'.normalize('NFD'), 'pol')).toEqual([2, 3]);
    expect(wordScore('a b c', 'a b', 'pol')).toEqual([2, 3]);
  });

  it('counts Arabic DER with and without each word\'s last letter', () => {
    const want = 'كَتَبَ الوَلَدُ';
    const got = 'كَتَبْ الوَلَدُ';
    const r = der(want, got);
    expect(r.all).toEqual([1, 8]);
    expect(r.noCase).toEqual([0, 6]);
  });
});

describe('NTREX split', () => {
  it('takes the first half of each translation for development, leaves a margin, trains on the rest', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const roles = ntrexRoles('text/xxx_Latn/ntrex.txt', lines);
    expect(roles.slice(0, 10).every((r) => r === 'dev')).toBe(true);
    expect(roles[10]).toBe('unused');
    expect(roles.slice(11).every((r) => r === 'train')).toBe(true);
  });
});
