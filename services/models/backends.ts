/**
 * The backends of this build: the engine module that runs a model's micro-batches in
 * inference threads, and the capability whose requests it answers. A model names its
 * backend in config.json (`backend`); the worker loads that module, so two model families
 * can serve one capability.
 */
import type { Capability } from '../capabilities.ts';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** A backend: its capability and its engine module (exports `createEngine`). */
export interface Backend { capability: Capability; module: URL; }

/** Every backend of this build, by name. */
export const BACKENDS: Readonly<Record<string, Backend>> = {
  // hashed character n-gram embedding bag, decoding in the ONNX graph (scripts/lid-onnx.ts)
  'lid-embedding-bag': { capability: 'language-id', module: new URL(`../workers/engines/language-id${EXT}`, import.meta.url) },
};
