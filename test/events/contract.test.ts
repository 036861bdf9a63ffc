/**
 * The event contract (issue 12, item 1): services/events/contract.ts is generated from
 * the .avsc files and is current, and no other module declares a wire type again.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_FILE, generateContract } from '../../scripts/gen-types.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('event contract', () => {
  it('is what npm run gen:types makes of schemas/ (run it after changing a schema)', () => {
    expect(readFileSync(CONTRACT_FILE, 'utf8')).toBe(generateContract());
  });

  it('is the only module that declares the wire types', () => {
    const names = [...readFileSync(CONTRACT_FILE, 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['ItemResult', 'Failure', 'UsageEvent', 'UsageEvents', 'WorkerStatus', 'ModelStatus', 'LanguageIdOutput', 'SchemaName']));
    const again: string[] = [];
    for (const file of [...sources(join(ROOT, 'services')), ...sources(join(ROOT, 'connectors'))]) {
      if (file === CONTRACT_FILE) continue;
      const text = readFileSync(file, 'utf8');
      for (const n of names) if (new RegExp(`^\\s*(?:export\\s+)?(?:interface|type)\\s+${n}\\b`, 'm').test(text)) again.push(`${relative(ROOT, file)}: ${n}`);
    }
    expect(again).toEqual([]);
  });
});
