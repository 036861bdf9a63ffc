/**
 * A throwaway PostgreSQL server for tests (Debian's postgresql package): initdb in a
 * temporary folder, `postgres` on a free loopback port, trust auth. As root it runs as
 * the `postgres` user, since PostgreSQL refuses to run as root.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './processes.ts';

/** Folder of the PostgreSQL server binaries, or null when none is installed. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const v = readdirSync(root).sort().reverse().find((d) => existsSync(join(root, d, 'bin', 'initdb')));
  return v ? join(root, v, 'bin') : null;
}

/** A running server. */
export interface TestPostgres { url: string; stop(): Promise<void>; }

/**
 * Starts a server.
 * @throws Error when PostgreSQL is not installed or does not accept connections within 20 s
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  const asRoot = userInfo().uid === 0;
  const pgUser = asRoot ? Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim()) : undefined;
  const pgGroup = asRoot ? Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim()) : undefined;
  if (asRoot) chownSync(dir, pgUser!, pgGroup!);
  const data = join(dir, 'data');
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'lmstream', '--auth=trust', '-E', 'UTF8', '--no-sync'], { uid: pgUser, gid: pgGroup, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const server = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], { uid: pgUser, gid: pgGroup, stdio: 'ignore' });
  const url = `postgres://lmstream@127.0.0.1:${port}/postgres`;
  const end = Date.now() + 120_000; // generous: a busy machine starts a cluster slowly
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    try { await c.connect(); await c.end(); break; } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > end) { server.kill('SIGKILL'); throw err; }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    },
  };
}

/**
 * The SQL stores a store's tests run on: a fresh SQLite file each time, and a throwaway
 * PostgreSQL server (started before the calling file's tests, stopped after) where its
 * binaries are installed; CI must have them. Call it at a test file's top level.
 * @param file the SQLite file's name
 * @returns `[name, target]` pairs for `describe.each`: `target()` gives a file path or a URL
 */
export function sqlStores(file: string): Array<[string, () => string]> {
  const hasPostgres = postgresBin() !== null;
  if (!hasPostgres && process.env.CI) throw new Error('CI needs PostgreSQL: apt-get install postgresql');
  let server: TestPostgres | undefined;
  beforeAll(async () => { if (hasPostgres) server = await startPostgres(); });
  afterAll(async () => { await server?.stop(); });
  return [
    ['SQLite', () => join(mkdtempSync(join(tmpdir(), 'store-')), file)],
    ...(hasPostgres ? [['PostgreSQL', () => server!.url] as [string, () => string]] : []),
  ];
}
