/**
 * A model repository for a test: a temporary folder with copies of some of the committed
 * models (`models/<name>`), so that a test can have the others absent (503 `model X is not
 * installed`) whatever is committed.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The committed model repository. */
export const MODELS = join(import.meta.dirname, '..', '..', 'models');

/**
 * A temporary model repository holding copies of the named committed models.
 * @returns its path
 * @throws Error when a named model is not committed
 */
export function repositoryWith(names: readonly string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'models-'));
  for (const n of names) cpSync(join(MODELS, n), join(root, n), { recursive: true, errorOnExist: true, force: false });
  return root;
}
