/**
 * Vitest global setup: every temporary file and folder of a test run goes under one
 * folder of its own, removed when the run ends.
 *
 * Why: the tests make their data folders, model repositories, SQLite files, PostgreSQL
 * clusters (39 MB each) and corpora with `mkdtempSync(join(tmpdir(), …))`, and most of
 * them never removed them: one machine had 13 GB of them in /tmp after a few hundred runs.
 * Pointing `TMPDIR` (which `os.tmpdir()` reads, on POSIX) at a fresh folder before the
 * test processes are forked sends all of them, and those of the services and tools the
 * tests start, to one place that is removed at the end, whether the tests passed or not.
 *
 * The folder is world-readable (0755, as /tmp's folders are traversable): the PostgreSQL
 * helper runs the server as the `postgres` user in a subfolder it hands to that user.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prefix of the run's temporary folder (under the temporary folder the run started with). */
export const RUN_TMP_PREFIX = 'lmstream-vitest-';

/**
 * Makes the run's temporary folder and points `TMPDIR` at it.
 * @returns the teardown, which removes the folder and everything in it
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), RUN_TMP_PREFIX));
  chmodSync(dir, 0o755);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = before;
    // a server a test left running may still write for a moment: retry, and never fail the run over it
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
