/**
 * Backend `llama-questions` (issue 15): search-style questions from a passage on a GGUF
 * instruct model through llama.cpp (services/llm/), for `mist-qg-1.5b` (docs/questions.md).
 *
 * The answer is generated under the grammar of a JSON array of exactly `n` strings of 1
 * to `max_question_chars` characters (default {@link MAX_QUESTION_CHARS}), greedily; questions that are blank or repeat
 * another (compared case- and space-insensitively) are dropped, and the missing ones are
 * asked for again, listing those already written, with seeded sampling (the greedy answer
 * would repeat itself), at most {@link RETRIES} times. Warnings: a very short passage, a
 * passage the project's language ID reads as another language than declared, and a
 * language the model's config lists as less reliable (`weak_languages`).
 */
import type { ItemResult, QuestionsOutput, QuestionsRequest } from '../../../events/contract.ts';
import { failed } from '../../../events/results.ts';
import { generateWithGrammar } from '../../../llm/generate.ts';
import { jsonSchemaGrammar } from '../../../llm/grammar.ts';
import { clean, closeLlm, openLlm, splitPrompt, type GenerativeConfig, type LoadedLlm } from '../../../llm/model.ts';
import { findQgLanguage, languageName } from '../../../languages.ts';
import { ModelRepository, type InstalledModel } from '../../../models/repository.ts';
import { LoadedModels } from '../../../workers/engines/sessions.ts';
import { checkStop, EngineError, type Engine, type EngineContext, type RunControl } from '../../../workers/engines/types.ts';
import { createEngine as createLidEngine } from '../../language-id/backends/lid-embedding-bag.ts';

/** Longest question by default, characters (config.json `max_question_chars`). */
export const MAX_QUESTION_CHARS = 300;
/** Times the missing questions are asked for again. */
export const RETRIES = 3;
/** A passage of fewer words gets a warning (the spec: "works best at paragraph length"). */
export const SHORT_PASSAGE_WORDS = 12;
/** Language ID's reading of the passage counts against the declared language from this confidence. */
export const OTHER_LANGUAGE_CONFIDENCE = 0.5;

/** config.json fields of a question-generation model (beside services/llm/model.ts's). */
export interface QuestionsConfig extends GenerativeConfig {
  /** ISO 639-3 codes of the 25 languages the model is less reliable in (a warning) */
  weak_languages?: string[];
  /** the language-ID model that checks the passage's language (default lid-neural-608, the more accurate: lid-lite-608 read a Swahili test passage as Kinyarwanda; none installed = no check) */
  language_id_model?: string;
  /** longest question, characters (default {@link MAX_QUESTION_CHARS}) */
  max_question_chars?: number;
}

/** A loaded question-generation model. */
export interface QuestionsModel { llm: LoadedLlm; weak: Set<string>; lidModel: string; maxChars: number; }

/** The system message. */
export const SYSTEM = 'You write search-style questions that a reader of a passage could answer from it. Write every question in the language of the passage, each different from the others, as a JSON list of strings.';

/** The user message for `n` questions, listing those already written. */
export function userMessage(passage: string, language: string, n: number, written: readonly string[]): string {
  return [
    `Passage (${languageName(language)}):\n${clean(passage)}`,
    written.length > 0 ? `Questions already written (do not repeat them):\n${written.map((q) => `- ${clean(q)}`).join('\n')}` : '',
    `Write exactly ${n} ${written.length > 0 ? 'more ' : ''}question${n === 1 ? '' : 's'} in ${languageName(language)}.`,
  ].filter(Boolean).join('\n\n');
}

const key = (q: string) => q.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();

/** The warnings of a passage (see the module comment). */
export function passageWarnings(passage: string, language: string, weak: ReadonlySet<string>, lid: { language: string; label: string; confidence: number } | null): string[] {
  const out: string[] = [];
  const words = passage.trim().split(/\s+/u).filter(Boolean).length;
  if (words < SHORT_PASSAGE_WORDS) out.push(`the passage is very short (${words} word${words === 1 ? '' : 's'}); questions work best from a paragraph`);
  if (lid && !lid.label.startsWith('zxx') && lid.confidence >= OTHER_LANGUAGE_CONFIDENCE) {
    const read = findQgLanguage(lid.language)?.code ?? lid.language;
    if (read !== language) out.push(`the passage reads as ${languageName(lid.language)} (${lid.label}), not ${languageName(language)} as declared`);
  }
  if (weak.has(language)) out.push(`mist-qg-1.5b is less reliable in ${languageName(language)}`);
  return out;
}

/**
 * Loads a question-generation model.
 * @param sequences passages evaluated at once (config.json `max_batch_size`)
 * @throws Error when the weights do not load
 */
export async function openQuestionsModel(cfg: InstalledModel & QuestionsConfig, sequences: number, threads: number): Promise<QuestionsModel> {
  return { llm: await openLlm(cfg, sequences, threads), weak: new Set(cfg.weak_languages ?? []), lidModel: cfg.language_id_model ?? 'lid-neural-608', maxChars: cfg.max_question_chars ?? MAX_QUESTION_CHARS };
}

/**
 * Writes a passage's questions (see the module comment).
 * @returns exactly `input.n` distinct questions, and the tokens evaluated over all attempts
 * @throws EngineError CONTEXT_TOO_LONG, INFERENCE_FAILED (not n distinct questions after the retries), CANCELLED, DEADLINE_EXCEEDED
 */
export async function writeQuestions(m: QuestionsModel, input: QuestionsRequest, check: () => void = () => {}): Promise<{ questions: string[]; evaluated: number }> {
  const questions: string[] = [];
  let evaluated = 0;
  const seen = new Set<string>();
  for (let attempt = 0; attempt <= RETRIES && questions.length < input.n; attempt++) {
    const missing = input.n - questions.length;
    const { shared, tails } = splitPrompt(m.llm, SYSTEM, userMessage(input.passage, input.language, missing, questions), ['']);
    const prompt = [...shared, ...tails[0]!.tokenize(m.llm.model.tokenizer)];
    // a character can take up to 4 byte tokens in a byte-level vocabulary
    const budget = missing * (4 * m.maxChars + 16) + 16;
    if (prompt.length + 16 > m.llm.contextSize) throw new EngineError('CONTEXT_TOO_LONG', `the passage takes ${prompt.length} tokens, over the model's maximum context length of ${m.llm.contextSize} tokens`);
    const grammar = await jsonSchemaGrammar({ type: 'array', items: { type: 'string', minLength: 1, maxLength: m.maxChars }, minItems: missing, maxItems: missing });
    const gen = await m.llm.sequences.use((seq) => generateWithGrammar(m.llm.model, seq, prompt, grammar, Math.min(budget, m.llm.contextSize - prompt.length), check, attempt === 0 ? undefined : { temperature: 0.8, seed: attempt }));
    evaluated += gen.evaluated;
    if (gen.truncated) continue;
    for (const raw of JSON.parse(gen.text) as string[]) {
      // the grammar counts characters as llama.cpp decodes them; bytes that are not UTF-8
      // (a byte-level vocabulary allows them) become U+FFFD each, so cut to the limit again
      const q = Array.from(raw.trim()).slice(0, m.maxChars).join('').trim();
      const k = key(q);
      if (k.length === 0 || seen.has(k) || questions.length >= input.n) continue;
      seen.add(k);
      questions.push(q);
    }
  }
  if (questions.length < input.n) throw new EngineError('INFERENCE_FAILED', `the model wrote ${questions.length} distinct questions of the ${input.n} asked for after ${RETRIES + 1} attempts`);
  return { questions, evaluated };
}

/** The engine of backend `llama-questions` (services/workers/engines/types.ts). */
export function createEngine(ctx: EngineContext): Engine<QuestionsRequest, QuestionsOutput> {
  const repo = new ModelRepository(ctx.repository);
  const lid = createLidEngine(ctx);
  const models = new LoadedModels<QuestionsModel>(async (name) => {
    const cfg = repo.config(name) as (InstalledModel & QuestionsConfig) | null;
    if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
    return openQuestionsModel(cfg, cfg.max_batch_size, ctx.intraOpThreads);
  }, (m) => closeLlm(m.llm));

  /** The language-ID answers of the passages, or nulls when its model is not installed. */
  const readLanguages = async (m: QuestionsModel, passages: string[]) => {
    try {
      const rs = await lid.run(m.lidModel, passages.map((text) => ({ text, model: m.lidModel, mode: 'coverage' as const, topK: 1, candidates: null })));
      return rs.map((r) => r.output ?? null);
    } catch (err) {
      if (err instanceof EngineError && err.code === 'MODEL_NOT_INSTALLED') return passages.map(() => null);
      throw err;
    }
  };




  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs, control?: RunControl) {
      const m = await models.get(name);
      const read = await readLanguages(m, inputs.map((i) => i.passage));
      return Promise.all(inputs.map(async (input, i): Promise<ItemResult<QuestionsOutput>> => {
        try {
          const { questions } = await writeQuestions(m, input, () => checkStop(control, i));
          return { output: { questions, language: input.language, warnings: passageWarnings(input.passage, input.language, m.weak, read[i] ?? null) }, failure: null };
        } catch (err) {
          if (err instanceof EngineError) return failed(err.code, err.message);
          throw err;
        }
      }));
    },
  };
}
