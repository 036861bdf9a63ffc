/**
 * The model repository (issue 12, item 4): config.json checked against its schema with
 * the defaults applied, the version policy, and a bad file named with its field.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_DEFAULTS } from '../../services/models/config.ts';
import { ModelConfigError, ModelRepository, resolveWeights } from '../../services/models/repository.ts';

const MODELS = join(import.meta.dirname, '..', '..', 'models');

/** A repository holding a copy of lid-lite-608 whose config.json is changed by `edit`. */
function repoWith(edit: (cfg: Record<string, unknown>) => Record<string, unknown> = (c) => c): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'repo-'));
  const dir = join(root, 'lid-lite-608');
  cpSync(join(MODELS, 'lid-lite-608'), dir, { recursive: true });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')))));
  return { root, dir };
}

describe('weights outside the version folders (GGUF models, config.json `weights`)', () => {
  /** A repository with purplemist-flash-1.0's committed config.json and no weights. */
  const generative = () => {
    const root = mkdtempSync(join(tmpdir(), 'repo-'));
    cpSync(join(MODELS, 'purplemist-flash-1.0', 'config.json'), join(root, 'purplemist-flash-1.0', 'config.json'));
    return root;
  };
  it('is not installed while no path names a file (coming soon, 503)', () => {
    expect(resolveWeights('/nowhere', ['${NO_SUCH_VARIABLE_XYZ}/m.gguf', '1/model.gguf'], {})).toBeNull();
    const root = generative();
    expect(new ModelRepository(root).config('purplemist-flash-1.0')).toBeNull();
    expect(new ModelRepository(root).check()).toEqual([]);
  });
  it('takes the first path that names a file: an environment variable, else one relative to the folder', () => {
    const root = generative();
    const dir = join(root, 'purplemist-flash-1.0');
    mkdirSync(join(dir, '1'));
    writeFileSync(join(dir, '1', 'model.gguf'), 'GGUF');
    const weights = mkdtempSync(join(tmpdir(), 'weights-'));
    writeFileSync(join(weights, 'purplemist-flash-1.0.gguf'), 'GGUF');
    const paths = ['${W}/purplemist-flash-1.0.gguf', '1/model.gguf'];
    expect(resolveWeights(dir, paths, { W: weights })).toBe(join(weights, 'purplemist-flash-1.0.gguf'));
    expect(resolveWeights(dir, paths, {})).toBe(join(dir, '1', 'model.gguf'));
    expect(resolveWeights(dir, paths, { W: '' })).toBe(join(dir, '1', 'model.gguf'));
    expect(resolveWeights(dir, [join(weights, 'purplemist-flash-1.0.gguf')], {})).toBe(join(weights, 'purplemist-flash-1.0.gguf'));
    expect(new ModelRepository(root).config('purplemist-flash-1.0')).toMatchObject({ backend: 'llama-decide', version: 1, modelPath: join(dir, '1', 'model.gguf'), inputs: {}, context_length: 32768 });
  });
  it('needs typed inputs and outputs only without weights', () => {
    const { root } = repoWith(({ inputs, ...rest }) => rest);
    expect(() => new ModelRepository(root).check()).toThrow(/must have required property 'inputs'/);
  });
});

describe('ModelRepository', () => {
  it('reads a model folder that is a symbolic link (regression: check() skipped it)', () => {
    const root = mkdtempSync(join(tmpdir(), 'repo-'));
    symlinkSync(join(MODELS, 'lid-lite-608'), join(root, 'lid-lite-608'), 'dir');
    expect(new ModelRepository(root).check()).toEqual(['lid-lite-608']);
  });

  it('reads the committed models: backend, batching, instances, typed inputs, the latest version', () => {
    const repo = new ModelRepository(MODELS);
    expect(repo.check()).toEqual(['diacnet-2.0', 'diacnet-mini-2.0', 'diactag-2.0', 'lid-lite-608', 'lid-neural-608']);
    expect(repo.config('diacnet-mini-2.0')).toMatchObject({ backend: 'diacnet', capability: 'diacritize', word_lm: { file: 'word-lm.bin', order: 3 } });
    const cfg = repo.config('lid-neural-608')!;
    expect(cfg).toMatchObject({ backend: 'lid-embedding-bag', capability: 'language-id', max_batch_size: 256, instance_count: 1, version: 1 });
    expect(cfg.dynamic_batching).toEqual({ max_queue_delay_ms: 0, max_queue_size: 8192, preferred_batch_size: [64] });
    expect(cfg.inputs.ids).toMatchObject({ data_type: 'int32', dims: ['N', 'L'] });
    expect(cfg.modelPath).toBe(join(MODELS, 'lid-neural-608', '1', 'model.onnx'));
  });

  it('applies the defaults for what a config leaves out', () => {
    const { root } = repoWith(({ dynamic_batching, instance_count, max_batch_size, version_policy, model_file, ...rest }) => rest);
    const cfg = new ModelRepository(root).config('lid-lite-608')!;
    expect(cfg.dynamic_batching).toEqual(MODEL_DEFAULTS.dynamic_batching);
    expect(cfg).toMatchObject({ instance_count: 1, max_batch_size: MODEL_DEFAULTS.max_batch_size, model_file: 'model.onnx', version_policy: { latest: {} } });
  });

  it('serves the latest version folder that holds the model file, or the one the policy names', () => {
    const { root, dir } = repoWith();
    mkdirSync(join(dir, '3'));
    cpSync(join(dir, '1', 'model.onnx'), join(dir, '3', 'model.onnx'));
    mkdirSync(join(dir, '7')); // empty: not a version
    expect(new ModelRepository(root).config('lid-lite-608')!.version).toBe(3);
    const pinned = repoWith((c) => ({ ...c, version_policy: { specific: { version: 1 } } }));
    expect(new ModelRepository(pinned.root).config('lid-lite-608')!.version).toBe(1);
    const missing = repoWith((c) => ({ ...c, version_policy: { specific: { version: 2 } } }));
    expect(new ModelRepository(missing.root).config('lid-lite-608')).toBeNull();
  });

  it('fails naming the file and the field for a config that breaks its schema', () => {
    const cases: Array<[(c: Record<string, unknown>) => Record<string, unknown>, RegExp]> = [
      [(c) => ({ ...c, max_batch_size: 0 }), /config\.json: max_batch_size must be >= 1/],
      [(c) => ({ ...c, dynamic_batching: { max_queue_size: 'lots' } }), /config\.json: dynamic_batching\.max_queue_size must be integer/],
      [(c) => ({ ...c, instance_count: 1.5 }), /config\.json: instance_count must be integer/],
      [(c) => ({ ...c, inputs: { ids: { data_type: 'int33', dims: ['N'] } } }), /config\.json: inputs\.ids\.data_type must be equal to one of the allowed values/],
      [(c) => ({ ...c, backend: 'teleport' }), /config\.json: backend "teleport" is not one of this build's \(llama-decide, llama-extract, lid-embedding-bag, diactag, diacnet, llama-questions\)/],
      [(c) => ({ ...c, capability: 'diacritize' }), /config\.json: backend "lid-embedding-bag" runs language-id, not diacritize/],
      [(c) => ({ ...c, name: 'other' }), /config\.json: name "other" is not the folder's name "lid-lite-608"/],
      [({ backend, ...rest }) => rest, /config\.json: \(top level\) must have required property 'backend'/],
    ];
    for (const [edit, message] of cases) {
      const repo = new ModelRepository(repoWith(edit).root);
      expect(() => repo.check(), String(message)).toThrow(ModelConfigError);
      expect(() => repo.check(), String(message)).toThrow(message);
      expect(repo.installed('lid-lite-608')).toBe(false);
    }
    const { root, dir } = repoWith();
    writeFileSync(join(dir, 'config.json'), '{ not json');
    expect(() => new ModelRepository(root).check()).toThrow(/config\.json: not JSON/);
  });
});

describe('start-up with a bad model repository', () => {
  it('fails naming the file and the field, instead of answering requests wrongly later', async () => {
    const { startService } = await import('../helpers/service.ts');
    const { root } = repoWith((c) => ({ ...c, dynamic_batching: { max_queue_delay_ms: -5 } }));
    await expect(startService({ MODEL_REPOSITORY: root })).rejects.toThrow(/lid-lite-608\/config\.json: dynamic_batching\.max_queue_delay_ms must be >= 0/);
  });
});
