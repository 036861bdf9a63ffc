/**
 * API keys: created by the CLI (`npm run keys`), shown once, stored as SHA-256 hashes
 * in SQLite; `API_KEYS` adds keys from the environment. A key is `lms_` plus 32
 * random bytes in base64url (256 bits, so a plain hash is safe to store: there is
 * nothing to brute-force).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { migrate, openDb, type SqlDb } from '../lib/db.ts';

/** A key as listed (never the key itself). */
export interface KeyRecord { id: string; name: string; created_at: string; revoked_at: string | null; }

/** Who a verified key belongs to. */
export interface KeyIdentity { id: string; name: string; }

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** See the module comment. */
export class KeyStore {
  private readonly env = new Map<string, KeyIdentity>();
  private readonly cache = new Map<string, { identity: KeyIdentity | null; until: number }>();

  private constructor(private readonly db: SqlDb, envKeys: string, private readonly cacheMs: number) {
    for (const k of envKeys.split(',').map((s) => s.trim()).filter(Boolean)) {
      const h = sha256(k);
      this.env.set(h, { id: `env-${h.slice(0, 12)}`, name: 'API_KEYS' });
    }
  }

  /**
   * Opens the store: a SQLite file or a PostgreSQL URL (shared by every gateway).
   * @param envKeys comma-separated keys accepted besides stored ones
   * @param cacheMs how long a verification is cached (so a revocation takes up to this long)
   */
  static async open(target: string, envKeys = '', cacheMs = 5000): Promise<KeyStore> {
    const db = await openDb(target);
    await migrate(db, [`CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL, revoked_at TEXT)`]);
    return new KeyStore(db, envKeys, cacheMs);
  }

  /** Creates a key. @returns its id and the key, which is not stored and cannot be shown again */
  async create(name: string): Promise<{ id: string; key: string }> {
    const key = `lms_${randomBytes(32).toString('base64url')}`;
    const id = `key_${randomBytes(6).toString('hex')}`;
    await this.db.run('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?,?,?,?)', [id, name, sha256(key), new Date().toISOString()]);
    return { id, key };
  }

  /** Stored keys, newest first. */
  list(): Promise<KeyRecord[]> {
    return this.db.all<KeyRecord>('SELECT id, name, created_at, revoked_at FROM api_keys ORDER BY created_at DESC');
  }

  /**
   * Revokes a key by id, or by name when exactly one active key has that name; with
   * `all`, every active key of that name.
   * @returns how many keys were revoked (0 when none matches)
   * @throws Error when several active keys have that name and `all` is not set
   */
  async revoke(idOrName: string, opts: { all?: boolean } = {}): Promise<number> {
    this.cache.clear();
    const now = new Date().toISOString();
    const byId = await this.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, idOrName]);
    if (byId > 0) return byId;
    const named = await this.db.all<{ id: string }>('SELECT id FROM api_keys WHERE name = ? AND revoked_at IS NULL', [idOrName]);
    if (named.length > 1 && !opts.all) {
      throw new Error(`${named.length} active keys are named ${idOrName} (${named.map((k) => k.id).join(', ')}): revoke one by its id, or all of them with --all`);
    }
    if (named.length === 0) return 0;
    return this.db.run('UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL', [now, idOrName]);
  }

  /** The owner of a key, or null when it is unknown or revoked. */
  async verify(key: string): Promise<KeyIdentity | null> {
    const h = sha256(key);
    for (const [eh, identity] of this.env) if (timingSafeEqual(Buffer.from(eh), Buffer.from(h))) return identity;
    const c = this.cache.get(h);
    if (c && c.until > Date.now()) return c.identity;
    const rows = await this.db.all<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE hash = ? AND revoked_at IS NULL', [h]);
    const identity = rows[0] ? { id: rows[0].id, name: rows[0].name } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(h, { identity, until: Date.now() + this.cacheMs });
    return identity;
  }

  close(): Promise<void> { return this.db.close(); }
}
