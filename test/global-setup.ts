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
 */
import { ownTmpDir } from './helpers/tmp.ts';

/** Prefix of the run's temporary folder (under the temporary folder the run started with). */
export const RUN_TMP_PREFIX = 'lmstream-vitest-';

/**
 * Makes the run's temporary folder and points `TMPDIR` at it.
 * @returns the teardown, which removes the folder and everything in it
 */
export default function setup(): () => void {
  return ownTmpDir(RUN_TMP_PREFIX);
}
