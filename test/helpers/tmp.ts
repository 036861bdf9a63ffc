/**
 * A temporary folder of a run's own: the test run (test/global-setup.ts) and the
 * benchmarks (bench/tmp.ts) point `TMPDIR` at one, so that every temporary file made
 * through `os.tmpdir()` in the process, and in the services and tools it starts after, goes
 * there and is removed with it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Makes a folder `<prefix>XXXXXX` under the current temporary folder, readable and
 * traversable by other users (0755, as /tmp's folders are: the PostgreSQL helper runs its
 * server as the `postgres` user in a subfolder it hands to that user), and points `TMPDIR`
 * at it.
 * @returns a function that points `TMPDIR` back and removes the folder with everything in it
 */
export function ownTmpDir(prefix: string): () => void {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = before;
    // a server a run left behind may still write for a moment: retry, and never throw over it
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
