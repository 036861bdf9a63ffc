/**
 * The diacnet model folder's config.json (scripts/diacnet-onnx.ts diacnetConfig). Regression:
 * re-exporting a retrained network wrote config.json afresh and dropped the folder's
 * `word_lm` settings; tune-word-lm.ts retunes only languages with a news development set,
 * so Arabic's settings fell back to the defaults.
 */
import { describe, expect, it } from 'vitest';
import { diacnetConfig } from '../../scripts/diacnet-onnx.ts';

const W = { features: { buckets: 1 << 18, window: 4 }, features_per_letter: 22 };
const TRAINING = { names: ['Ec'], shapes: { Ec: [2, 2] }, hidden: 160, dilations: [1, 2], steps: 13031, device: 'gpu' };

describe('diacnetConfig', () => {
  it('keeps the word model settings of the config the folder had', () => {
    const word_lm = { file: 'word-lm.bin', char_weight: { ara: 1, pol: 0.02 } };
    const cfg = diacnetConfig('diacnet-2.0', W, TRAINING, { word_lm });
    expect(cfg.word_lm).toEqual(word_lm);
    expect(cfg).toMatchObject({ name: 'diacnet-2.0', backend: 'diacnet', features_per_letter: 22 });
  });

  it('records the training run without the tensor names and shapes, and has no word model settings for a new folder', () => {
    const cfg = diacnetConfig('diacnet-x', W, TRAINING);
    expect(cfg.training).toEqual({ hidden: 160, dilations: [1, 2], steps: 13031, device: 'gpu' });
    expect(cfg).not.toHaveProperty('word_lm');
  });
});
