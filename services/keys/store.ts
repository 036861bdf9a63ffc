/**
 * API keys: created by the CLI (`npm run keys`), shown once, stored as SHA-256 hashes
 * in SQLite; `API_KEYS` adds keys from the environment, `API_ADMIN_KEYS` admin keys. A
 * key is `lms_` plus 32 random bytes in base64url (256 bits, so a plain hash is safe to
 * store: there is nothing to brute-force). A key may hold the admin role
 * (`api_key_roles`, granted by the CLI): GET /v1/analytics then shows every key's
 * traffic, not only its own.
 */
import { hash, randomBytes } from 'node:crypto';
import { migrate, openDb, type SqlDb } from '../lib/db.ts';

/** A key as listed (never the key itself). */
export interface KeyRecord { id: string; name: string; created_at: string; revoked_at: string | null; admin: boolean; }

/** Who a verified key belongs to. */
export interface KeyIdentity { id: string; name: string; /** holds the admin role */ admin?: boolean; }

/** SHA-256 of `s` in hex (64 characters); the one-shot `crypto.hash` (Node ≥ 20.12), about half the CPU of `createHash` per key checked. */
const sha256 = (s: string) => hash('sha256', s, 'hex');

/** See the module comment. */
export class KeyStore {
  private readonly env = new Map<string, KeyIdentity>();
  private readonly cache = new Map<string, { identity: KeyIdentity | null; until: number }>();

  private constructor(private readonly db: SqlDb, envKeys: string, private readonly cacheMs: number, envAdminKeys = '') {
    for (const k of envKeys.split(',').map((s) => s.trim()).filter(Boolean)) {
      const h = sha256(k);
      this.env.set(h, { id: `env-${h.slice(0, 12)}`, name: 'API_KEYS' });
    }
    for (const k of envAdminKeys.split(',').map((s) => s.trim()).filter(Boolean)) {
      const h = sha256(k);
      this.env.set(h, { id: `env-${h.slice(0, 12)}`, name: 'API_ADMIN_KEYS', admin: true });
    }
  }

  /**
   * Opens the store: a SQLite file or a PostgreSQL URL (shared by every gateway).
   * @param envKeys comma-separated keys accepted besides stored ones
   * @param cacheMs how long a verification is cached (so a revocation takes up to this long)
   * @param envAdminKeys comma-separated admin keys accepted besides stored ones
   */
  static async open(target: string, envKeys = '', cacheMs = 5000, envAdminKeys = ''): Promise<KeyStore> {
    const db = await openDb(target);
    await migrate(db, [
      `CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL, revoked_at TEXT)`,
      // roles in a table of their own: stores made before roles need no column change
      'CREATE TABLE IF NOT EXISTS api_key_roles (id TEXT PRIMARY KEY, role TEXT NOT NULL)',
    ]);
    return new KeyStore(db, envKeys, cacheMs, envAdminKeys);
  }

  /**
   * Creates a key.
   * @param admin give it the admin role
   * @returns its id and the key, which is not stored and cannot be shown again
   */
  async create(name: string, admin = false): Promise<{ id: string; key: string }> {
    const key = `lms_${randomBytes(32).toString('base64url')}`;
    const id = `key_${randomBytes(6).toString('hex')}`;
    await this.db.transaction(async (tx) => {
      await tx.run('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?,?,?,?)', [id, name, sha256(key), new Date().toISOString()]);
      if (admin) await tx.run("INSERT INTO api_key_roles (id, role) VALUES (?, 'admin')", [id]);
    });
    return { id, key };
  }

  /**
   * Grants or takes back the admin role of an active key, by id or by a name only one active key has.
   * @returns the key's id
   * @throws Error when no active key, or several, match
   */
  async setAdmin(idOrName: string, admin: boolean): Promise<string> {
    const rows = await this.db.all<{ id: string }>('SELECT id FROM api_keys WHERE (id = ? OR name = ?) AND revoked_at IS NULL', [idOrName, idOrName]);
    const exact = rows.find((r) => r.id === idOrName);
    if (!exact && rows.length !== 1) throw new Error(rows.length === 0 ? `no active key ${idOrName}` : `${rows.length} active keys are named ${idOrName} (${rows.map((r) => r.id).join(', ')}): name one by its id`);
    const id = (exact ?? rows[0]!).id;
    await this.db.run('DELETE FROM api_key_roles WHERE id = ?', [id]);
    if (admin) await this.db.run("INSERT INTO api_key_roles (id, role) VALUES (?, 'admin')", [id]);
    this.cache.clear();
    return id;
  }

  /** Stored keys, newest first. */
  async list(): Promise<KeyRecord[]> {
    const rows = await this.db.all<Omit<KeyRecord, 'admin'> & { role: string | null }>(
      'SELECT k.id, k.name, k.created_at, k.revoked_at, r.role FROM api_keys k LEFT JOIN api_key_roles r ON r.id = k.id ORDER BY k.created_at DESC');
    return rows.map(({ role, ...k }) => ({ ...k, admin: role === 'admin' }));
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
    // a lookup by hash, like the stored keys' (an index on `hash`): what its timing could
    // tell is about the SHA-256 of a 256-bit key, which does not lead back to the key
    const env = this.env.get(h);
    if (env) return env;
    const c = this.cache.get(h);
    if (c && c.until > Date.now()) return c.identity;
    const rows = await this.db.all<{ id: string; name: string; role: string | null }>(
      'SELECT k.id, k.name, r.role FROM api_keys k LEFT JOIN api_key_roles r ON r.id = k.id WHERE k.hash = ? AND k.revoked_at IS NULL', [h]);
    const identity = rows[0] ? { id: rows[0].id, name: rows[0].name, ...(rows[0].role === 'admin' ? { admin: true } : {}) } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(h, { identity, until: Date.now() + this.cacheMs });
    return identity;
  }

  close(): Promise<void> { return this.db.close(); }
}
