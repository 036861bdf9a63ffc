/**
 * The code lines of the no-language class (scripts/lid-code.ts). Regression: TypeScript's
 * translated compiler messages (German, French, ... prose in JSON) were taken as code,
 * teaching the model that sentences of 13 languages are no language.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeLine, codeLines } from '../../../scripts/lid-code.ts';

const require = createRequire(import.meta.url);

describe('no-language code lines', () => {
  const lines = new Set(codeLines());

  it('takes code lines and leaves comments out', () => {
    expect(lines.size).toBeGreaterThan(5000);
    expect(codeLine('const x = foo(bar[1]); // y')).toBe(true);
    expect(codeLine('// this comment is prose, not code at all')).toBe(false);
    expect(codeLine(' * @param line one line of a source file')).toBe(false);
  });

  it('leaves out the translated compiler messages of typescript/lib/<locale>/', () => {
    const file = join(dirname(require.resolve('typescript/package.json')), 'lib', 'de', 'diagnosticMessages.generated.json');
    const german = readFileSync(file, 'utf8').split('\n').filter(codeLine).map((l) => l.trim().replace(/\s+/g, ' '));
    expect(german.length).toBeGreaterThan(100); // they do look like code lines
    expect(german.filter((l) => lines.has(l))).toEqual([]);
  });
});
