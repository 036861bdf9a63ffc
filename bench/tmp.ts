/**
 * Imported for its effect, first, by every benchmark entry point that makes temporary
 * folders, itself or through a helper (baseline.ts, kafka-env.ts: helpers do not import
 * it, so importing one changes nothing in the importing process). Points `TMPDIR` (read by
 * `os.tmpdir()` on POSIX, in this process and the services, connectors and tools it
 * starts) at a fresh folder, and removes that folder when the benchmark exits. Each
 * bulk-ingestion job used to leave about 9 MB of input and corpus files in /tmp; the test
 * run does the same with test/global-setup.ts.
 */
import { ownTmpDir } from '../test/helpers/tmp.ts';

process.once('exit', ownTmpDir('lmstream-bench-'));
