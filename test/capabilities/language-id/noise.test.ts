import { describe, expect, it } from 'vitest';
import { LEGACY_CODE_PAGE, legacyMojibake, noisyVariant, stripDiacritics, strippable } from '../../../scripts/lid-noise.ts';

describe('stripDiacritics', () => {
  it('drops combining marks of Latin and Greek letters', () => {
    expect(stripDiacritics('Ẹ kú àárọ̀')).toBe('E ku aaro');
    expect(stripDiacritics('đúng rồi')).toBe('đung roi'); // đ does not decompose
    expect(stripDiacritics('Ελληνικά')).toBe('Ελληνικα');
    expect(stripDiacritics('şţ łø ı')).toBe('st łø ı');
  });
  it('leaves text without decomposable letters as it is', () => {
    expect(stripDiacritics('plain text 123')).toBe('plain text 123');
  });
});

describe('legacyMojibake', () => {
  it('reads Turkish in Windows-1254 as Windows-1252', () => {
    expect(legacyMojibake('yılında öğretim İstanbul Şişli', 'windows-1254')).toBe('yýlýnda öðretim Ýstanbul Þiþli');
  });
  it('uses Windows-1252 for 0x80–0x9F on every Node version (Node 20 TextDecoder gives C1 controls)', () => {
    // ź is 0x9F in Windows-1250, Ÿ in Windows-1252
    expect(legacyMojibake('źródło łódź', 'windows-1250')).toBe('Ÿród³o ³ódŸ');
  });
  it('decodes a byte Windows-1252 leaves undefined to its C1 control, as browsers do', () => {
    expect(legacyMojibake('ať', 'windows-1250')).toBe('a\u009d'); // ť is 0x9D in Windows-1250
  });
  it('keeps characters the code page cannot encode and the length in characters', () => {
    const text = 'Azərbaycan dili ğ ş ı';
    const m = legacyMojibake(text, 'windows-1254');
    expect(m).toBe('Azərbaycan dili ð þ ý');
    expect([...m].length).toBe([...text].length);
  });
  it('does not change ASCII', () => {
    expect(legacyMojibake('Hello, world!', 'windows-1257')).toBe('Hello, world!');
  });
});

describe('noisyVariant', () => {
  const always = (x: number) => () => x;
  it('gives the mojibake for a label with a legacy code page when the draw says so', () => {
    expect(LEGACY_CODE_PAGE.tur_Latn).toBe('windows-1254');
    expect(noisyVariant('yılında şöyle', 'tur_Latn', always(0.1))).toBe('yýlýnda þöyle');
    expect(noisyVariant('yılında şöyle', 'tur_Latn', always(0.9))).toBe('yılında soyle');
  });
  it('falls back to stripping when the code page does not change the text', () => {
    // é and ž have the same byte in Windows-1250 and Windows-1252
    expect(legacyMojibake('velké už', 'windows-1250')).toBe('velké už');
    expect(noisyVariant('velké už', 'ces_Latn', always(0.1))).toBe('velke uz');
    expect(noisyVariant('čaj', 'ces_Latn', always(0.1))).toBe('èaj');
  });
  it('leaves scripts where dropping marks is not how people write', () => {
    expect(strippable('hin_Deva')).toBe(false);
    expect(noisyVariant('नमस्ते', 'hin_Deva', always(0.9))).toBe('नमस्ते');
    expect(noisyVariant('йогурт', 'rus_Cyrl', always(0.1))).toBe('йогурт');
  });
});
