/**
 * Per-language parts of a model file that are built on their first use (a packed file's
 * gzip part is decompressed then, word-lm-format.ts packParts), with the error of a part
 * that cannot be read kept, so that a damaged part fails its language's texts alone and
 * is read once (the word model, the word-class model and the spelling model of the diacnet
 * models: word-lm.ts, spelling-lm.ts).
 */
import { EngineError } from '../../workers/engines/types.ts';

/** Parts by language (ISO 639-3): each one's source, or a function that gives it, made into a `T` by `build` on first use. */
export class LazyParts<A, T> {
  private readonly ready = new Map<string, T>();
  private readonly pending = new Map<string, () => A>();
  private readonly broken = new Map<string, EngineError>();

  /**
   * @param sources per language its source, or a function that gives it (called once, on the language's first use)
   * @param build what the part is made into (called once per language)
   * @param what what the parts are, in the error of a part that cannot be read ("word model")
   */
  constructor(sources: ReadonlyMap<string, A | (() => A)>, private readonly build: (source: A, language: string) => T, private readonly what: string) {
    for (const [lang, a] of sources) {
      if (typeof a === 'function') this.pending.set(lang, a as () => A);
      else this.ready.set(lang, build(a, lang));
    }
  }

  /** Whether there is a part for the language (a damaged one too: get() then throws). */
  has(language: string): boolean { return this.ready.has(language) || this.pending.has(language) || this.broken.has(language); }

  /**
   * The language's part (undefined when there is none); the first call for a language
   * reads it.
   * @throws EngineError INFERENCE_FAILED, with the reading error as `cause`, when the
   *   language's part cannot be read (a damaged file); that call and every later one for
   *   the language, without reading the part again
   */
  get(language: string): T | undefined {
    const load = this.pending.get(language);
    if (load) {
      this.pending.delete(language);
      try {
        this.ready.set(language, this.build(load(), language));
      } catch (e) {
        this.broken.set(language, new EngineError('INFERENCE_FAILED', `the ${this.what}'s part for ${language} cannot be read (${(e as Error).message}); reinstall the model`, { cause: e }));
      }
    }
    const broken = this.broken.get(language);
    if (broken) throw broken;
    return this.ready.get(language);
  }
}
