/**
 * A baseline tree for the benchmarks that compare this checkout with an earlier commit
 * in one run (`--baseline REF`): a git worktree of REF in a temporary folder, with this
 * checkout's node_modules linked in when both lockfiles are the same, or else a
 * hard-linked copy of it (npm replaces files, never writes them in place) brought to REF's
 * package-lock.json from the npm cache, native modules both share keeping their builds.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A checked-out baseline; `remove()` deletes the worktree. */
export interface BaselineTree { dir: string; remove(): void; }

/**
 * Checks REF out beside this checkout.
 * @throws Error when REF is unknown or npm cannot complete its node_modules
 */
export function checkoutBaseline(ref: string): BaselineTree {
  const dir = join(mkdtempSync(join(tmpdir(), 'bench-baseline-')), 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: ROOT, stdio: 'ignore' });
  const remove = () => execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
  try {
    const sameLock = spawnSync('git', ['diff', '--quiet', ref, 'HEAD', '--', 'package-lock.json'], { cwd: ROOT }).status === 0;
    if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    else {
      execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
      execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, stdio: 'ignore', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
    }
  } catch (err) { remove(); throw err; }
  return { dir, remove };
}
