/**
 * Imported for its effect by every benchmark that makes temporary folders: points
 * `TMPDIR` (read by `os.tmpdir()` on POSIX, in this process and the services, connectors
 * and tools it starts) at a fresh folder, and removes that folder when the benchmark
 * exits. Each bulk-ingestion job used to leave about 9 MB of input and corpus files in
 * /tmp; the test run does the same with test/global-setup.ts.
 */
import { ownTmpDir } from '../test/helpers/tmp.ts';

process.once('exit', ownTmpDir('lmstream-bench-'));
