/**
 * The boundary between capability modules and the gateway (docs/extending.md): no file
 * under services/capabilities/ imports from services/gateway/, and the route kit
 * (services/route-kit/), which is all a capability's routes get from outside their
 * folder, imports neither of them. Imports are read with TypeScript's own
 * pre-processor (static imports, `import type`, re-exports and `import()` of a literal).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVICES = join(ROOT, 'services');

/** Source files under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs|js)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** The project folders a file imports from, as paths under services/ ("gateway/app.ts"). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.'))
    .map((s) => relative(SERVICES, resolve(dirname(file), s)));
}

/** Imports of files under `from` (a folder under services/) that land in one of `forbidden`: "file -> import". */
function crossings(from: string, forbidden: string[]): string[] {
  return sources(join(SERVICES, from)).flatMap((file) => importsOf(file)
    .filter((target) => forbidden.some((f) => target === f || target.startsWith(`${f}/`)))
    .map((target) => `${relative(ROOT, file)} -> services/${target}`));
}

describe('capability modules and the gateway', () => {
  it('reads imports as expected (the gateway does import the capability registry and the route kit)', () => {
    expect(crossings('gateway', ['capabilities'])).toContain('services/gateway/app.ts -> services/capabilities/index.ts');
    expect(crossings('gateway', ['route-kit'])).toContain('services/gateway/capability-kit.ts -> services/route-kit/types.ts');
  });

  it('no file under services/capabilities/ imports from services/gateway/', () => {
    expect(crossings('capabilities', ['gateway'])).toEqual([]);
  });

  it('the route kit imports neither the gateway nor the capability modules', () => {
    expect(crossings('route-kit', ['gateway', 'capabilities'])).toEqual([]);
  });
});
