/**
 * Imported for its effect by every benchmark that makes temporary folders: points
 * `TMPDIR` (read by `os.tmpdir()` on POSIX, in this process and the services, connectors
 * and tools it starts) at a fresh folder, and removes that folder when the benchmark
 * exits. Each bulk-ingestion job used to leave about 9 MB of input and corpus files in
 * /tmp; the test run does the same with test/global-setup.ts.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The benchmark's temporary folder (removed at exit). */
export const BENCH_TMP = mkdtempSync(join(tmpdir(), 'lmstream-bench-'));
// traversable by the other users a benchmark may run a server as, like /tmp's folders
chmodSync(BENCH_TMP, 0o755);
process.env.TMPDIR = BENCH_TMP;
process.once('exit', () => rmSync(BENCH_TMP, { recursive: true, force: true }));
