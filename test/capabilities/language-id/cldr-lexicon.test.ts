/**
 * The CLDR lexicon of the language-ID training script (scripts/lid-cldr.ts): locales map
 * to the labels the model uses, entries land on the label of their own script, English
 * loanwords and placeholders are dropped.
 */
import { describe, expect, it } from 'vitest';
import { cldrLexicons } from '../../../scripts/lid-cldr.ts';
import { cldrLanguageTo6393 } from '../../../scripts/lid-prior.ts';
import { dominantScript } from '../../../services/capabilities/language-id/scripts.ts';

describe('CLDR lexicon', () => {
  const labels = new Set(['bos_Latn', 'hrv_Latn', 'srp_Cyrl', 'srp_Latn', 'zsm_Latn', 'nob_Latn', 'nno_Latn', 'tgl_Latn', 'cmn_Hans', 'cmn_Hant', 'eng_Latn', 'rus_Cyrl']);
  const lex = cldrLexicons(labels);

  it('maps CLDR language subtags to the individual languages the labels use', () => {
    expect(cldrLanguageTo6393('bs')).toBe('bos');
    expect(cldrLanguageTo6393('ms')).toBe('zsm');
    expect(cldrLanguageTo6393('no')).toBe('nob');
    expect(cldrLanguageTo6393('fil')).toBe('tgl');
    expect(cldrLanguageTo6393('yue')).toBe('yue');
    expect([...lex.keys()].sort()).toEqual([...labels].sort());
    expect(lex.get('nob_Latn')!.locales).toEqual(expect.arrayContaining(['nb', 'no']));
    expect(lex.get('cmn_Hant')!.locales).toContain('zh-Hant');
  });

  it('keeps the words that tell close languages apart', () => {
    // Bosnian and Serbian write the international month names, Croatian its own
    expect(lex.get('bos_Latn')!.entries).toEqual(expect.arrayContaining(['januar', 'sedmica']));
    expect(lex.get('hrv_Latn')!.entries).toEqual(expect.arrayContaining(['siječanj', 'tjedan']));
    expect(lex.get('hrv_Latn')!.entries).not.toContain('januar');
    expect(lex.get('srp_Cyrl')!.entries).toContain('јануар');
    expect(lex.get('srp_Latn')!.entries).toContain('januar');
  });

  it('puts an entry on the label of its script and drops placeholders, loanwords and non-words', () => {
    for (const [label, l] of lex) {
      expect(l.entries.length, label).toBeGreaterThan(1000);
      for (const e of l.entries) {
        expect(e).not.toMatch(/\{\d\}/);
        expect((e.match(/\p{L}/gu) ?? []).length).toBeGreaterThanOrEqual(2);
        expect(dominantScript(e).replace('Hani', label.slice(-4)), e).toBe(label.slice(-4));
      }
    }
    expect(lex.get('bos_Latn')!.entries).not.toContain('golf'); // English has it too
    expect(lex.get('eng_Latn')!.entries).toContain('golf');
  });
});
