import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger, type UsageEvent } from '../../services/billing/ledger.ts';
import { KeyStore } from '../../services/keys/store.ts';
import { SqliteDb } from '../../services/lib/sqlite.ts';

const ev = (requestId: string, itemIndex: number, quantity: number, unit = 'characters', ts = 1000): UsageEvent => ({
  eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId: 'k1', capability: 'diacritize', model: 'diactag-2.0', unit, quantity, timestampMs: ts,
});

describe('Ledger', () => {
  it('stores an event id once and bills characters per started 1,000 of each request', async () => {
    const l = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'ledger-')), 'ledger.db'));
    expect(await l.record([ev('r1', 0, 600), ev('r1', 1, 600), ev('r2', 0, 10)])).toEqual({ inserted: 3, duplicates: 0 });
    expect(await l.record([ev('r1', 0, 600), ev('r2', 0, 10)])).toEqual({ inserted: 0, duplicates: 2 });
    const [row] = await l.report({ keyId: 'k1' });
    // r1: 1,200 characters → 2 units; r2: 10 characters → 1 unit
    expect(row).toMatchObject({ quantity: 1210, billable_units: 3, requests: 2, unit: 'characters' });
    expect(await l.report({ from: 2000 })).toEqual([]);
    expect(await l.report({ keyId: 'other' })).toEqual([]);
    await l.close();
  });
});

describe('KeyStore', () => {
  it('stores only the hash of a key and verifies it until revoked', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'keys.db');
    const s = await KeyStore.open(file, 'env-key-1, env-key-2', 0);
    const { id, key } = await s.create('bob');
    expect(key).toMatch(/^lms_[A-Za-z0-9_-]{43}$/);
    expect(await s.verify(key)).toEqual({ id, name: 'bob' });
    expect((await s.verify('env-key-2'))?.name).toBe('API_KEYS');
    expect(await s.verify('nope')).toBeNull();
    const raw = await SqliteDb.open(file);
    const rows = await raw.all<Record<string, string>>('SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(key);
    await raw.close();
    expect(await s.revoke(id)).toBe(1);
    expect(await s.verify(key)).toBeNull();
    expect((await s.list())[0]!.revoked_at).not.toBeNull();
    await s.close();
  });
});
