/**
 * Tiny generative weights for tests (scripts/models-tiny.ts): written once per test file
 * into a temporary folder that MODEL_WEIGHTS_DIR names, so the repository's own model
 * folders (models/<name>/config.json `weights`) serve them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { repositoryWith as makeRepository, writeTinyModels } from '../../scripts/models-tiny.ts';

/** The repository's model folders. */
export const MODELS = join(import.meta.dirname, '..', '..', 'models');

/**
 * Writes the tiny models, sets MODEL_WEIGHTS_DIR for this test file's process (and the
 * inference threads it starts) and removes them after the file's tests.
 * @returns the weights folder
 */
export function useTinyWeights(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmstream-weights-'));
  writeTinyModels(dir);
  process.env.MODEL_WEIGHTS_DIR = dir;
  afterAll(() => {
    delete process.env.MODEL_WEIGHTS_DIR;
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/**
 * A model repository for a test (scripts/models-tiny.ts `repositoryWith`): the
 * repository's folders linked, those named in `edits` copied with their config.json fields
 * replaced; removed after the calling file's tests.
 * @returns its folder (give it as MODEL_REPOSITORY)
 */
export function repositoryWith(edits: Record<string, Record<string, unknown>>): string {
  const root = makeRepository(MODELS, edits);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return root;
}
