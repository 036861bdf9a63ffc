/**
 * Regression test: the test run's temporary files used to stay in /tmp after every run
 * (13 GB on one machine). test/global-setup.ts now gives the run a folder of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import setup, { RUN_TMP_PREFIX } from './global-setup.ts';

describe('the test run\'s temporary folder', () => {
  it('is where this test process and the processes it starts make their temporary files', () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_TMP_PREFIX}`));
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(tmpdir());
  });

  it('is made traversable by other users, and removed with its contents by the teardown', () => {
    const outer = mkdtempSync(join(tmpdir(), 'outer-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = outer;
    let teardown: (() => void) | undefined;
    try {
      teardown = setup();
      const dir = tmpdir();
      expect(dirname(dir)).toBe(outer);
      expect(statSync(dir).mode & 0o777).toBe(0o755);
      mkdirSync(join(dir, 'data'));
      writeFileSync(join(dir, 'data', 'ledger.db'), 'x');
      teardown();
      expect(existsSync(dir)).toBe(false);
      expect(process.env.TMPDIR).toBe(outer);
    } finally {
      process.env.TMPDIR = saved;
      rmSync(outer, { recursive: true, force: true });
    }
  });
});
