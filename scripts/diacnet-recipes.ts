/**
 * The training recipes of the committed diacnet models (issue 13): the network's size and
 * its training time, the defaults of `npm run train:diacnet -- --name <model>` (and of
 * `npm run train:diacritics -- --model <model>`). diacnet-mini-2.0 is the same design as
 * diacnet-2.0 at about half the parameters. Training is time-boxed (the learning rate decays
 * with the time spent), so the step count depends on the machine; each model's
 * config.json records the steps and characters it was trained on.
 */

/** A diacnet model's recipe. */
export interface DiacnetRecipe {
  /** channels of the convolutions */
  hidden: number;
  /** dilation of each residual convolution (kernel 5), comma separated */
  dilations: string;
  /** dimension of the hashed word-level features' embeddings */
  featureDim: number;
  /** training time, minutes */
  minutes: number;
}

/** The recipes by model name. */
export const DIACNET_RECIPES: Readonly<Record<string, DiacnetRecipe>> = {
  'diacnet-2.0': { hidden: 96, dilations: '1,2,4,8,1,2', featureDim: 32, minutes: 80 },
  'diacnet-mini-2.0': { hidden: 64, dilations: '1,2,4,8', featureDim: 16, minutes: 24 },
};
