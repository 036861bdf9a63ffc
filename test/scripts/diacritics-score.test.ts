/**
 * How diacritic restoration is scored (scripts/diacritics-score.ts) and how its text is
 * split (scripts/diacritics-data.ts): both Vietnamese tone placements count as the same
 * restoration, words are compared position by position, Arabic DER counts with and
 * without case endings, an NTREX file splits by position in each translation into
 * development, margin and training lines, and Arabic's held-out split gives half its lines
 * to development.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { der, plannedLines, wordScore, words } from '../../scripts/diacritics-score.ts';
import { devHalf, heldOut, linesOf, ntrexRoles } from '../../scripts/diacritics-data.ts';

describe('diacritics scoring', () => {
  it('plans reference lines as marks-free texts whose slots are the letters with a choice', () => {
    // candidates.json's shape: per language, per base letter, the class ids it may take
    const [t] = plannedLines(['Zażółć gęślą'], 'diacnet-2.0', 'pol', { pol: { a: [0, 1], z: [0, 2], e: [0, 3] } });
    expect(t!.input).toMatchObject({ text: 'Zazolc gesla', language: 'pol', caseEndings: true, hints: null, minConfidence: 0 });
    // z, a, z, e, a have a choice here; o, l, c, g, s do not
    expect(t!.slots.map((s) => t!.us[s.unit]!.base)).toEqual(['z', 'a', 'z', 'e', 'a']);
    expect(t!.slots[1]!.candidates).toEqual([0, 1]);
  });

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

describe('Arabic development half', () => {
  // lines that differ in one place, as Tashkeela verses and sentences do
  const LINES = Array.from({ length: 3000 }, (_, i) => `قَالَ الرَّجُلُ ${i} كَلِمَةً`);

  it('gives about half of the held-out lines to development, by a hash that does not follow the held-out one (regression: the low bit of FNV-1a is the same for every held-out line)', () => {
    const held = LINES.filter(heldOut);
    expect(held.length).toBeGreaterThan(200);
    const dev = held.filter(devHalf).length;
    expect(dev / held.length).toBeGreaterThan(0.35);
    expect(dev / held.length).toBeLessThan(0.65);
    // a line's marks do not move it: the split is of the text as typed without them
    expect(devHalf('قال الرجل 1 كلمة')).toBe(devHalf('قَالَ الرَّجُلُ 1 كَلِمَةً'));
  });

  it('reads Arabic training, held-out and development lines from a corpora folder, the development ones from the held-out split only', () => {
    const root = mkdtempSync(join(tmpdir(), 'ara-split-'));
    try {
      mkdirSync(join(root, 'tashkeel'));
      mkdirSync(join(root, 'text', 'arb_Arab'), { recursive: true });
      writeFileSync(join(root, 'tashkeel', 'ara_train.txt'), LINES.slice(0, 2000).join('\n'));
      writeFileSync(join(root, 'text', 'arb_Arab', 'books.txt'), LINES.slice(2000).join('\n'));
      const lines = linesOf('ara', root);
      const by = (role: string) => lines.filter((l) => l.role === role).map((l) => l.text);
      expect(by('dev').length).toBeGreaterThan(50);
      expect(by('heldout').length).toBeGreaterThan(50);
      expect(by('dev').every((l) => heldOut(l) && devHalf(l))).toBe(true);
      expect(by('heldout').every((l) => heldOut(l) && !devHalf(l))).toBe(true);
      expect(by('train').every((l) => !heldOut(l))).toBe(true);
      expect(lines.length).toBe(LINES.length);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
