import { describe, expect, it } from 'vitest';
import { DICTIONARIES, dictionaryForms, isDictionaryForm, MAX_FORMS, relatedGroupsOf } from '../../../scripts/lid-dictionaries.ts';

describe('spelling dictionaries as language-ID vocabulary (scripts/lid-dictionaries.ts)', () => {
  it('uses no dictionary for a member of a group of closely related languages', () => {
    // a dictionary for Croatian and none for Bosnian would teach that the words they share are Croatian
    for (const label of Object.keys(DICTIONARIES)) expect(relatedGroupsOf(label), label).toEqual([]);
    expect(relatedGroupsOf('hrv_Latn').length).toBeGreaterThan(0);
  });
  it('uses each dictionary under a licence other than the GPL alone', () => {
    for (const [label, d] of Object.entries(DICTIONARIES)) {
      expect(d.licence, label).not.toMatch(/^\s*A?GPL[-\d.]*\s*$/);
      expect(d.licence, label).toMatch(/MIT|BSD|MPL|LGPL|Apache|CC-BY/);
    }
  });
  it('keeps words of letters and marks that do not start with a capital', () => {
    expect(isDictionaryForm('yılında')).toBe(true);
    expect(isDictionaryForm('खुर्काइराखेन')).toBe(true); // Devanagari vowel signs are marks
    expect(isDictionaryForm('Kodiak')).toBe(false);
    expect(isDictionaryForm("l'homme")).toBe(false);
    expect(isDictionaryForm('a')).toBe(false);
    expect(isDictionaryForm('co2')).toBe(false);
  });
  it('reads a dictionary with its affixes expanded, the same forms every time', () => {
    const forms = dictionaryForms('tuk_Latn');
    expect(forms.length).toBeGreaterThan(10_000);
    expect(forms.length).toBeLessThanOrEqual(MAX_FORMS);
    expect(forms.every(isDictionaryForm)).toBe(true);
    expect(forms).toEqual(dictionaryForms('tuk_Latn'));
    expect(dictionaryForms('bos_Latn')).toEqual([]);
  });
  it('reads a dictionary that is not expanded as its entries are written', () => {
    const forms = dictionaryForms('lit_Latn');
    expect(forms.length).toBeGreaterThan(10_000);
    expect(forms.some((f) => f.includes('/'))).toBe(false);
    expect(forms).toContain('namas');
  });
});
