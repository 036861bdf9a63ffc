/**
 * `npx tsx scripts/lid-script-languages.ts`: writes
 * services/capabilities/language-id/script-languages.json, what language ID answers for
 * text in a script that no trained label uses (issue 14), from Unicode CLDR
 * (`cldr-core`, Unicode License v3, a devDependency pinned by package-lock.json):
 * - every ISO 15924 script of CLDR's scriptMetadata.json that V8's regular expressions
 *   know as a Unicode Script property value (`\p{sc=Olck}`), except the special `Z…` codes;
 * - per script, the languages that CLDR's supplemental languageData.json lists as writing it
 *   as a primary script (`writers`, ISO 639-3), and CLDR's likely language for `und_<Script>`
 *   (likelySubtags.json, ISO 639-3);
 * - `language`: the script's language where the script is written by essentially one
 *   language, that is where CLDR lists at most one primary writer and it is the likely
 *   language (Olck → sat, Cher → chr, Vaii → vai); otherwise none, and the answer is
 *   `und_<Script>` (Cans: Cree, Inuktitut, Ojibwe…; Nkoo: Bambara, Mandingo, N'Ko).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cldrLanguageTo6393 } from './lid-prior.ts';

const require = createRequire(import.meta.url);
const metadata = require('cldr-core/scriptMetadata.json').scriptMetadata as Record<string, { likelyLanguage?: string }>;
const likely = require('cldr-core/supplemental/likelySubtags.json').supplemental.likelySubtags as Record<string, string>;
const languageData = require('cldr-core/supplemental/languageData.json').supplemental.languageData as Record<string, { _scripts?: string[] }>;
const version = require('cldr-core/package.json').version as string;

/** What the file holds per script. */
export interface ScriptLanguage {
  /** the script's language (ISO 639-3) where it is written by essentially one language */
  language?: string;
  /** CLDR's likely language of `und_<Script>` (ISO 639-3) */
  likely?: string;
  /** how many languages CLDR lists as writing the script as a primary script */
  writer_count: number;
  /** those languages (ISO 639-3, sorted), where there are at most {@link MAX_LISTED} */
  writers?: string[];
}
/** Most writers listed per script (Latin and Arabic have hundreds). */
const MAX_LISTED = 12;

const out: Record<string, ScriptLanguage> = {};
for (const code of Object.keys(metadata).sort()) {
  if (code.startsWith('Z')) continue;
  try { new RegExp(`\\p{sc=${code}}`, 'u'); } catch { continue; }
  const writers = [...new Set(Object.entries(languageData).filter(([k, v]) => !k.includes('-alt-') && (v._scripts ?? []).includes(code)).map(([k]) => cldrLanguageTo6393(k)))].sort();
  const tag = likely[`und-${code}`];
  const lk = tag ? cldrLanguageTo6393(tag.split('-')[0]!) : undefined;
  const entry: ScriptLanguage = { writer_count: writers.length, ...(writers.length <= MAX_LISTED ? { writers } : {}) };
  if (lk && lk !== 'und') entry.likely = lk;
  if (entry.likely && writers.length <= 1 && (writers.length === 0 || writers[0] === entry.likely)) entry.language = entry.likely;
  out[code] = entry;
}
const path = fileURLToPath(new URL('../services/capabilities/language-id/script-languages.json', import.meta.url));
writeFileSync(path, `${JSON.stringify({ source: `Unicode CLDR ${version} (cldr-core: scriptMetadata.json, supplemental/likelySubtags.json, supplemental/languageData.json), Unicode License v3; written by scripts/lid-script-languages.ts`, scripts: out }, null, 1)}\n`);
console.log(`wrote ${path}: ${Object.keys(out).length} scripts, ${Object.values(out).filter((e) => e.language).length} with one language`);
