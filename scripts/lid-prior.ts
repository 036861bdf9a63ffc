/**
 * Speaker-population prior for `mode=traffic`, from CLDR supplemental data
 * (`cldr-core/supplemental/territoryInfo.json`, Unicode CLDR, Unicode License v3):
 * for each territory, population × language population percent, summed per language.
 */
import { createRequire } from 'node:module';
import { iso6393 } from 'iso-639-3';

const require = createRequire(import.meta.url);

/**
 * CLDR uses macrolanguage codes (and `fil`) where our labels use the individual language most
 * texts are written in (FLORES-style conventions of ../shared/data/corpora/README.md).
 */
const MACRO_TO_INDIVIDUAL: Record<string, string> = {
  ara: 'arb', zho: 'cmn', fas: 'pes', msa: 'zsm', swa: 'swh', est: 'ekk', lav: 'lvs', uzb: 'uzn',
  mon: 'khk', nep: 'npi', aze: 'azj', grn: 'gug', orm: 'gaz', mlg: 'plt', aka: 'twi', que: 'quy',
  nor: 'nob', sqi: 'als', yid: 'ydd', kur: 'kmr', pus: 'pbt', kau: 'knc', ful: 'fuv', hbs: 'hrv',
  ori: 'ory', kon: 'kng', lah: 'pnb', ipk: 'esk', iku: 'ike', srd: 'sro', cre: 'crk', oji: 'ojg',
  // not a macrolanguage: Filipino, the standardised register of Tagalog, which FLORES-200
  // and the UDHR label tgl
  fil: 'tgl',
};

const TO_639_3 = new Map<string, string>();
for (const r of iso6393) if (r.iso6391) TO_639_3.set(r.iso6391, r.iso6393);

/**
 * The ISO 639-3 code our labels use for a CLDR language subtag (ISO 639-1 or 639-3,
 * macrolanguage codes mapped by {@link MACRO_TO_INDIVIDUAL}).
 * @param subtag language subtag of a CLDR locale or BCP 47 tag (`bs`, `ms`, `yue`)
 * @returns ISO 639-3 individual-language code (`bos`, `zsm`, `yue`); an unknown 2-letter
 *   subtag is returned unchanged
 */
export function cldrLanguageTo6393(subtag: string): string {
  const code = subtag.length === 2 ? TO_639_3.get(subtag) ?? subtag : subtag;
  return MACRO_TO_INDIVIDUAL[code] ?? code;
}

/**
 * Speakers per ISO 639-3 code for the given codes.
 * @param codes ISO 639-3 codes of the model's labels
 * @returns map of code to estimated speakers (people); codes CLDR does not list are absent
 */
export function buildPrior(codes: string[]): Record<string, number> {
  const info = require('cldr-core/supplemental/territoryInfo.json').supplemental.territoryInfo as Record<string, { _population: string; languagePopulation?: Record<string, { _populationPercent: string }> }>;
  const speakers = new Map<string, number>();
  for (const t of Object.values(info)) {
    const pop = Number(t._population);
    for (const [tag, lp] of Object.entries(t.languagePopulation ?? {})) {
      const code = cldrLanguageTo6393(tag.split('_')[0]!);
      speakers.set(code, (speakers.get(code) ?? 0) + (pop * Number(lp._populationPercent)) / 100);
    }
  }
  const wanted = new Set(codes);
  const out: Record<string, number> = {};
  for (const [code, n] of speakers) if (wanted.has(code) && n > 0) out[code] = Math.round(n);
  return out;
}
