/**
 * The operator CLIs as a person runs them: `npm run keys` and `npm run usage`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyStore } from '../services/keys/store.ts';
import { Ledger } from '../services/billing/ledger.ts';

const ROOT = join(import.meta.dirname, '..');
const run = (script: string, args: string[], dataDir: string) =>
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' });

describe('npm run keys', () => {
  it('creates a key shown once, lists it without the key, and revokes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const created = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'ops', '--json'], dir));
    expect(created).toMatchObject({ name: 'ops', key: expect.stringMatching(/^lms_/) });
    const listed = run('services/keys/cli.ts', ['list', '--json'], dir);
    expect(listed).toContain(created.id);
    expect(listed).not.toContain(created.key);
    const store = await KeyStore.open(join(dir, 'keys.db'), '', 0);
    expect(await store.verify(created.key)).toEqual({ id: created.id, name: 'ops' });
    expect(run('services/keys/cli.ts', ['revoke', 'ops'], dir)).toMatch(/revoked 1 key/);
    expect(await store.verify(created.key)).toBeNull();
    await store.close();
    expect(() => run('services/keys/cli.ts', ['create'], dir)).toThrow(/--name/);
  });

  it('grants and takes back the admin role (GET /v1/analytics shows every key to an admin key)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const admin = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'ops', '--admin', '--json'], dir));
    const user = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'dev', '--json'], dir));
    const store = await KeyStore.open(join(dir, 'keys.db'), '', 0, 'env-admin-key');
    expect(await store.verify(admin.key)).toEqual({ id: admin.id, name: 'ops', admin: true });
    expect(await store.verify(user.key)).toEqual({ id: user.id, name: 'dev' });
    expect((await store.verify('env-admin-key'))?.admin).toBe(true);
    expect(run('services/keys/cli.ts', ['grant-admin', 'dev'], dir)).toMatch(new RegExp(`granted the admin role to key ${user.id}`));
    expect((await store.verify(user.key))?.admin).toBe(true);
    expect(run('services/keys/cli.ts', ['revoke-admin', admin.id], dir)).toMatch(/took the admin role/);
    expect((await store.verify(admin.key))?.admin).toBeUndefined();
    expect(JSON.parse(run('services/keys/cli.ts', ['list', '--json'], dir)).map((k: { name: string; admin: boolean }) => [k.name, k.admin]).sort()).toEqual([['dev', true], ['ops', false]]);
    expect(() => run('services/keys/cli.ts', ['grant-admin', 'nobody'], dir)).toThrow(/no active key nobody/);
    await store.close();
  });

  it('revokes by name only when one active key has it, all of them with --all, and one by id (regression: a name revoked every key)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const a = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'team', '--json'], dir));
    const b = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'team', '--json'], dir));
    const c = JSON.parse(run('services/keys/cli.ts', ['create', '--name', 'team', '--json'], dir));
    expect(() => run('services/keys/cli.ts', ['revoke', 'team'], dir)).toThrow(/3 active keys are named team .*revoke one by its id, or all of them with --all/);
    const store = await KeyStore.open(join(dir, 'keys.db'), '', 0);
    expect(await store.verify(a.key)).not.toBeNull();
    expect(run('services/keys/cli.ts', ['revoke', a.id], dir)).toMatch(/revoked 1 key/);
    expect(await store.verify(a.key)).toBeNull();
    expect(await store.verify(b.key)).not.toBeNull();
    expect(run('services/keys/cli.ts', ['revoke', 'team', '--all'], dir)).toMatch(/revoked 2 key/);
    expect(await store.verify(c.key)).toBeNull();
    await store.close();
  });

  it('creates keys.db readable by its owner only (regression: it was world-readable)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    run('services/keys/cli.ts', ['create', '--name', 'ops', '--json'], dir);
    expect(statSync(join(dir, 'keys.db')).mode & 0o777).toBe(0o600);
    for (const f of ['keys.db-wal', 'keys.db-shm']) {
      try { expect(statSync(join(dir, f)).mode & 0o077, f).toBe(0); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; }
    }
  });
});

describe('npm run usage', () => {
  it('reports the ledger per key, capability, model and unit over a time range', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const ledger = await Ledger.open(join(dir, 'ledger.db'));
    await ledger.record([
      { eventId: 'r:0', requestId: 'r', itemIndex: 0, keyId: 'k', capability: 'language_id', model: 'lid-lite-608', unit: 'texts', quantity: 1, timestampMs: Date.parse('2026-05-01T00:00:00Z') },
      { eventId: 'r:1', requestId: 'r', itemIndex: 1, keyId: 'k', capability: 'language_id', model: 'lid-lite-608', unit: 'texts', quantity: 1, timestampMs: Date.parse('2026-05-01T00:00:00Z') },
      // a bulk job: one request id, each text its own request; a request event's 100 texts folded into one usage event
      { eventId: 'job:3', requestId: 'job', itemIndex: 3, keyId: 'bulk:job', capability: 'language_id' as const, model: 'lid-neural-608', unit: 'texts' as const, quantity: 100, timestampMs: Date.parse('2026-05-01T00:00:00Z') },
      ...[0, 1, 2].map((i) => ({ eventId: `job:${i}`, requestId: 'job', itemIndex: i, keyId: 'bulk:job', capability: 'language_id' as const, model: 'lid-neural-608', unit: 'texts' as const, quantity: 1, timestampMs: Date.parse('2026-05-01T00:00:00Z') })),
    ]);
    await ledger.close();
    // the API's capability name, not the events' Avro symbol (regression: it printed language_id)
    const rows = JSON.parse(run('services/billing/cli.ts', ['--json', '--key', 'k'], dir));
    expect(rows).toEqual([{ key_id: 'k', capability: 'language-id', model: 'lid-lite-608', unit: 'texts', quantity: 2, billable_units: 2, requests: 1 }]);
    // regression: a bulk job of 39,242 texts showed requests: 1
    expect(JSON.parse(run('services/billing/cli.ts', ['--json', '--key', 'bulk:job'], dir))).toEqual([
      { key_id: 'bulk:job', capability: 'language-id', model: 'lid-neural-608', unit: 'texts', quantity: 103, billable_units: 103, requests: 103 },
    ]);
    expect(run('services/billing/cli.ts', [], dir)).toMatch(/language-id/);
    expect(JSON.parse(run('services/billing/cli.ts', ['--json', '--from', '2026-06-01'], dir))).toEqual([]);
  });
});
