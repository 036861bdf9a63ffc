/**
 * The code lines that teach the language-ID no-language class (`zxx_Zxxx`) what code and
 * markup look like: lines of the JavaScript, TypeScript and JSON files of installed npm
 * packages (pinned by package-lock.json).
 */
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Source folders (installed npm packages, pinned by package-lock.json) whose code lines
 * teach the no-language class what code and markup look like.
 */
export const CODE_DIRS = ['typescript/lib', 'fastify/lib', 'kafkajs/src', 'pg/lib', 'avsc/lib', 'pino/lib', 'ajv/lib', 'sharp/lib', 'vitest/dist', 'yaml/dist'];
const CODE_FILE = /\.(js|mjs|cjs|ts|json)$/;
/**
 * A line of code: at least two code symbols and at most 75% letters and spaces; comment
 * lines (prose) are not.
 * @param line one line of a source file
 */
export function codeLine(line: string): boolean {
  const t = line.trim();
  if (t.length < 12 || t.length > 300 || /^(\/\/|\/?\*|#)/.test(t)) return false; // comments are prose
  const symbols = (t.match(/[{}()[\];=<>&|+*/\\$#@^~`_:.,'"!?-]/g) ?? []).length;
  const letters = (t.match(/[\p{L}\s]/gu) ?? []).length;
  return symbols >= 2 && letters / t.length <= 0.75 && /\p{L}/u.test(t);
}
/**
 * Distinct code lines of the {@link CODE_DIRS} packages, in a fixed order (files sorted by
 * path; files over 2 MB skipped). TypeScript's translated compiler messages
 * (`typescript/lib/<locale>/diagnosticMessages.generated.json`) are prose and left out.
 * @returns lines with whitespace collapsed; empty when node_modules is missing
 */
export function codeLines(): string[] {
  const walk = (dir: string): string[] => {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) => {
      const f = join(dir, e.name);
      // translated compiler messages (typescript/lib/<locale>/) are prose, not code
      return e.isDirectory() ? walk(f) : CODE_FILE.test(e.name) && !e.name.startsWith('diagnosticMessages') ? [f] : [];
    });
  };
  const code: string[] = [];
  for (const d of CODE_DIRS) for (const f of walk(join(ROOT, 'node_modules', d))) {
    if (statSync(f).size > 2_000_000) continue;
    for (const l of readFileSync(f, 'utf8').split('\n')) if (codeLine(l)) code.push(l.trim().replace(/\s+/g, ' '));
  }
  return [...new Set(code)];
}

