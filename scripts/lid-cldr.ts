/**
 * A word-and-phrase lexicon per language from Unicode CLDR locale data (Unicode License
 * v3, https://www.unicode.org/license.txt), for the language-ID training script: the
 * emoji and symbol names and keywords (`cldr-annotations-full`), the long unit names
 * with their plural forms (`cldr-units-full`), and the names of months, weekdays, day
 * periods and eras and the relative date phrases ("last week", "in 3 days"; from
 * `cldr-dates-full`). CLDR's translators write these in each locale's everyday
 * vocabulary, so they add words that a language's one UDHR translation or few hundred
 * corpus lines lack. All three packages are devDependencies pinned by package-lock.json.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { dominantScript } from '../services/capabilities/language-id/scripts.ts';
import { cldrLanguageTo6393 } from './lid-prior.ts';

const require = createRequire(import.meta.url);

/** The lexicon of one label. */
export interface CldrLexicon {
  /** CLDR locales the entries came from (`bs`, `sr-Latn`) */
  locales: string[];
  /** distinct entries (a word or a short phrase), sorted */
  entries: string[];
}

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Strings under `node`, depth first, object keys filtered by `keep`. */
function strings(node: unknown, keep: (key: string) => boolean, out: string[] = []): string[] {
  if (typeof node === 'string') out.push(node);
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) if (keep(k)) strings(v, keep, out);
  return out;
}

/** Every entry string of one locale, unfiltered. */
function localeStrings(locale: string, dirs: { annotations: string; units: string; dates: string }): string[] {
  const out: string[] = [];
  const read = (file: string): any => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
  const ann = read(join(dirs.annotations, 'annotations', locale, 'annotations.json'))?.annotations?.annotations;
  if (ann) for (const a of Object.values(ann) as Array<{ default?: string[]; tts?: string[] }>) out.push(...(a.default ?? []), ...(a.tts ?? []));
  const units = read(join(dirs.units, 'main', locale, 'units.json'))?.main?.[locale]?.units?.long;
  if (units) strings(units, () => true, out);
  const fields = read(join(dirs.dates, 'main', locale, 'dateFields.json'))?.main?.[locale]?.dates?.fields;
  // abbreviated and narrow fields ("sed.", "S") are not words
  if (fields) strings(fields, (k) => !/-(short|narrow)$/.test(k), out);
  const greg = read(join(dirs.dates, 'main', locale, 'ca-gregorian.json'))?.main?.[locale]?.dates?.calendars?.gregorian;
  if (greg) {
    for (const part of ['months', 'days', 'quarters', 'dayPeriods'] as const) {
      for (const ctx of ['format', 'stand-alone']) strings(greg[part]?.[ctx]?.wide, () => true, out);
    }
    strings(greg.eras?.eraNames, () => true, out);
  }
  return out;
}

/** An entry as training text: placeholders and symbols of the unit data removed. */
function clean(s: string): string {
  return s.replace(/\{\d\}/g, ' ').replace(/\[[A-Z]+\]/g, ' ').replace(/\s+/g, ' ').trim().replace(/^[\s:,.;–-]+|[\s:,.;–-]+$/g, '');
}

/**
 * The CLDR lexicon of every label in `labels` that a CLDR locale writes.
 *
 * A locale's label is the ISO 639-3 code of its language subtag ({@link cldrLanguageTo6393})
 * and the dominant ISO 15924 script of each entry (`Hani` → `Hant` for `-Hant` locales
 * and Cantonese, else `Hans`), so entries in another script than the language's (Latin
 * brand names in a Cyrillic locale) land on a label the model does not have and are
 * dropped. Regional variants (`de-CH`, `es-419`) are skipped as near-copies of their base
 * locale. Entries with fewer than two letters are dropped, and so are entries of a
 * non-English locale that English also has (loanwords such as "golf" or "pizza" say
 * nothing about the language).
 * @param labels labels of the model (`bos_Latn`, `srp_Cyrl`)
 * @returns map of label to lexicon; labels no locale writes are absent
 * @throws Error when a CLDR package is not installed (`npm ci` installs them)
 */
export function cldrLexicons(labels: ReadonlySet<string>): Map<string, CldrLexicon> {
  const dirs = { annotations: packageDir('cldr-annotations-full'), units: packageDir('cldr-units-full'), dates: packageDir('cldr-dates-full') };
  const locales = [...new Set([
    ...readdirSync(join(dirs.annotations, 'annotations')), ...readdirSync(join(dirs.units, 'main')), ...readdirSync(join(dirs.dates, 'main')),
  ])].sort();
  const englishStrings = localeStrings('en', dirs);
  const english = new Set(englishStrings.map((s) => clean(s).toLowerCase()));
  const byLabel = new Map<string, { locales: Set<string>; entries: Set<string> }>();
  for (const locale of locales) {
    const [lang, ...rest] = locale.split('-');
    if (!lang || lang === 'und' || lang === 'root' || rest.some((p) => !/^[A-Z][a-z]{3}$/.test(p))) continue;
    const code = cldrLanguageTo6393(lang);
    const han = rest.includes('Hant') || lang === 'yue' ? 'Hant' : 'Hans';
    for (const raw of locale === 'en' ? englishStrings : localeStrings(locale, dirs)) {
      const entry = clean(raw);
      if ((entry.match(/\p{L}/gu) ?? []).length < 2) continue;
      if (code !== 'eng' && english.has(entry.toLowerCase())) continue;
      let script = dominantScript(entry);
      if (script === 'Hani') script = han;
      const label = `${code}_${script}`;
      if (!labels.has(label)) continue;
      let lex = byLabel.get(label);
      if (!lex) { lex = { locales: new Set(), entries: new Set() }; byLabel.set(label, lex); }
      lex.locales.add(locale);
      lex.entries.add(entry);
    }
  }
  return new Map([...byLabel].map(([label, l]) => [label, { locales: [...l.locales], entries: [...l.entries].sort() }]));
}
