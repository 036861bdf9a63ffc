/**
 * The training recipes of the committed diacnet models (issues 13 and 35): the network's
 * size, its batch and its training time, the defaults of `npm run train:diacnet -- --name
 * <model>` (and of `npm run train:diacritics -- --model <model>`). Training is time-boxed
 * (the learning rate decays with the time spent), so the step count depends on the
 * machine; each model's config.json records the steps, characters and device it was
 * trained on.
 *
 * Both committed networks were trained on one NVIDIA H200 (`device: 'gpu'`, CuPy), the two
 * side by side for 5.5 minutes (scripts/train-diacnet-gpu.sh, which passes these same
 * settings): diacnet-2.0 took 13,031 steps of 128 windows (199 M characters),
 * diacnet-mini-2.0 18,925 (289 M). With `--device cpu` (NumPy) diacnet-2.0's network takes
 * about 0.85 s a step of 32 windows on the 2-core machine, so the GPU run's steps would take
 * about half a day there. The sizes are chosen for the speed targets on one CPU core
 * (bench:diacritics; docs/diacritics.md): 160 channels and 8 layers (receptive field ±76
 * characters) for diacnet-2.0, 96 channels and 6 layers for the mini.
 */

/** A diacnet model's recipe. */
export interface DiacnetRecipe {
  /** channels of the convolutions */
  hidden: number;
  /** dilation of each residual convolution (kernel 5), comma separated */
  dilations: string;
  /** dimension of the hashed word-level features' embeddings */
  featureDim: number;
  /** sequences (of at most 256 characters) per step */
  batch: number;
  /** where train_diacnet.py runs: `cpu` (NumPy) or `gpu` (CuPy) */
  device: 'cpu' | 'gpu';
  /** training time, minutes */
  minutes: number;
}

/** The recipes by model name. */
export const DIACNET_RECIPES: Readonly<Record<string, DiacnetRecipe>> = {
  'diacnet-2.0': { hidden: 160, dilations: '1,2,4,8,16,1,2,4', featureDim: 32, batch: 128, device: 'gpu', minutes: 5.5 },
  'diacnet-mini-2.0': { hidden: 96, dilations: '1,2,4,8,1,2', featureDim: 16, batch: 128, device: 'gpu', minutes: 5.5 },
};
