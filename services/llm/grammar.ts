/**
 * Grammars of JSON Schemas for constrained generation (node-llama-cpp's
 * `createGrammarForJsonSchema`, which compiles a schema to GBNF), made once per schema
 * and kept for the most recent {@link CACHED_GRAMMARS} schemas: callers ask again with the
 * same schema (a template extracted from many documents, a count of questions). A grammar
 * belongs to the llama.cpp runtime, not to a model, so one cache serves every model of a
 * thread.
 */
import type { LlamaGrammar } from 'node-llama-cpp';
import { llamaRuntime } from './llama.ts';

/** Grammars kept, at most. */
export const CACHED_GRAMMARS = 64;

const cache = new Map<string, Promise<LlamaGrammar>>();

/**
 * The grammar of a JSON Schema (the subset node-llama-cpp supports).
 * @throws Error when the schema cannot be compiled or parsed as a grammar (not cached)
 */
export function jsonSchemaGrammar(schema: object): Promise<LlamaGrammar> {
  const key = JSON.stringify(schema);
  let g = cache.get(key);
  if (g) {
    // most recently used last
    cache.delete(key);
    cache.set(key, g);
    return g;
  }
  g = llamaRuntime().then((llama) => llama.createGrammarForJsonSchema(schema as never) as Promise<LlamaGrammar>);
  g.catch(() => cache.delete(key));
  cache.set(key, g);
  if (cache.size > CACHED_GRAMMARS) cache.delete(cache.keys().next().value!);
  return g;
}
