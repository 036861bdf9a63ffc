import { describe, expect, it } from 'vitest';
import { Ledger } from '../../services/billing/ledger.ts';
import type { UsageEvent } from '../../services/events/contract.ts';
import { KeyStore } from '../../services/keys/store.ts';
import { openDb } from '../../services/lib/db.ts';
import { sqlStores } from '../helpers/postgres.ts';

const ev = (requestId: string, itemIndex: number, quantity: number, unit: UsageEvent['unit'] = 'characters', ts = 1000): UsageEvent => ({
  eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId: 'k1', capability: 'diacritize', model: 'diactag-2.0', unit, quantity, timestampMs: ts,
});

const stores = sqlStores('store.db');

describe.each(stores)('Ledger on %s', (_name, target) => {
  it('stores an event id once and bills characters per started 1,000 of each request', async () => {
    const l = await Ledger.open(target());
    expect(await l.record([ev('r1', 0, 600), ev('r1', 1, 600), ev('r2', 0, 10)])).toEqual({ inserted: 3, duplicates: 0 });
    expect(await l.record([ev('r1', 0, 600), ev('r2', 0, 10)])).toEqual({ inserted: 0, duplicates: 2 });
    const [row] = await l.report({ keyId: 'k1' });
    // r1: 1,200 characters → 2 units; r2: 10 characters → 1 unit
    expect(row).toMatchObject({ quantity: 1210, billable_units: 3, requests: 2, unit: 'characters' });
    expect(await l.report({ from: 2000 })).toEqual([]);
    expect(await l.report({ keyId: 'other' })).toEqual([]);
    expect(await l.count()).toBe(3);
    await l.close();
  });
  it('counts replays inside one batch and across the statements of a large batch', async () => {
    const l = await Ledger.open(target());
    const r = `big-${id8()}`;
    const before = await l.count();
    expect(await l.record([ev(r, 0, 1, 'texts'), ev(r, 1, 1, 'texts')])).toEqual({ inserted: 2, duplicates: 0 });
    // 250 new events (3 statements of at most 100 rows), each of 10 of them twice, and the 2 stored ones again
    const fresh = Array.from({ length: 250 }, (_, i) => ev(r, i + 2, 1, 'texts'));
    const batch = [...fresh, ...fresh.slice(95, 105), ev(r, 0, 1, 'texts'), ev(r, 1, 1, 'texts')];
    expect(await l.record(batch)).toEqual({ inserted: 250, duplicates: 12 });
    expect(await l.count()).toBe(before + 252);
    await l.close();
  });
  it('rolls a failed batch back whole', async () => {
    const l = await Ledger.open(target());
    const before = await l.count();
    await expect(l.record([ev('r9', 0, 5), { ...ev('r9', 1, 5), quantity: null as unknown as number }])).rejects.toThrow();
    expect(await l.count()).toBe(before);
    await l.close();
  });
});

describe.each(stores)('KeyStore on %s', (_name, target) => {
  it('stores only the hash of a key and verifies it until revoked', async () => {
    const where = target();
    const s = await KeyStore.open(where, 'env-key-1, env-key-2', 0);
    const { id, key } = await s.create(`bob-${id8()}`);
    expect(key).toMatch(/^lms_[A-Za-z0-9_-]{43}$/);
    expect((await s.verify(key))?.id).toBe(id);
    expect((await s.verify('env-key-2'))?.name).toBe('API_KEYS');
    expect(await s.verify('nope')).toBeNull();
    const raw = await openDb(where);
    const rows = await raw.all<Record<string, string>>('SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(key);
    await raw.close();
    expect(await s.revoke(id)).toBe(1);
    expect(await s.verify(key)).toBeNull();
    expect((await s.list()).find((k) => k.id === id)!.revoked_at).not.toBeNull();
    await s.close();
  });
});

const id8 = () => Math.random().toString(36).slice(2, 10);
