/**
 * Backend `llama-decide` (issue 15): typed decisions on a GGUF instruct model through
 * llama.cpp (services/llm/). Each case takes one sequence of the model's context; its
 * state is evaluated once and every question after it, reading the answer labels'
 * next-token probabilities (services/llm/labels.ts), rolled back after each question so
 * the next reuses the evaluated state. Cases of a micro-batch run on separate sequences
 * at once, and llama.cpp evaluates their tokens in shared batches. Nothing is sampled.
 * A case whose prompt does not fit the context fails alone with 413 CONTEXT_TOO_LONG; a
 * case whose request is cancelled, or whose deadline passes, while it runs stops at the
 * next question or state chunk and frees its sequence (499 / 504). The model's
 * config.json sets `dynamic_batching.continuous`, so each case is handed over as soon as
 * one of the `max_batch_size` sequences is free and answered when it is done.
 */
import type { Token } from 'node-llama-cpp';
import type { DecideOutput, DecideRequest, ItemResult } from '../../../events/contract.ts';
import { failed } from '../../../events/results.ts';
import { clean, closeLlm, openLlm, splitPrompt, type GenerativeConfig, type LoadedLlm } from '../../../llm/model.ts';
import { planLabels, scoreLabels, type LabelPlan } from '../../../llm/labels.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { LoadedModels } from '../../../workers/engines/sessions.ts';
import { checkStop, EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import { answerOf, calibrated, type DecideCalibration } from '../answers.ts';
import { questionPrompt, stateBlock, SYSTEM, type Question, type QuestionPrompt } from '../prompt.ts';

/** Tokens of a state evaluated between two checks for cancellation and deadline (a 32,000-token state is many seconds on a CPU). */
export const STATE_CHUNK = 512;

/** A loaded decision model. */
export interface DecideModel { llm: LoadedLlm; calibration: DecideCalibration; }

/** A case ready to run: its shared tokens and each question's label plan. */
export interface PlannedCase {
  shared: Token[];
  questions: Array<{ id: string; question: Question; prompt: QuestionPrompt; plan: LabelPlan }>;
  /** tokens the longest question needs on top of the shared ones */
  longest: number;
}

/**
 * Plans a case: renders and tokenizes its prompt and each question's labels.
 * @throws EngineError CONTEXT_TOO_LONG when the state and its longest question exceed the model's context (tokens)
 */
export function planCase(m: LoadedLlm, state: unknown, questions: Record<string, Question>): PlannedCase {
  const ids = Object.keys(questions);
  const prompts = ids.map((id) => questionPrompt(cleanQuestion(questions[id]!)));
  const { shared, tails } = splitPrompt(m, SYSTEM, clean(stateBlock(state)), prompts.map((p) => p.text));
  const planned = ids.map((id, i) => ({ id, question: questions[id]!, prompt: prompts[i]!, plan: planLabels(m.model.tokenizer, tails[i]!, prompts[i]!.labels) }));
  const longest = Math.max(...planned.map((q) => q.plan.prompt.length + Math.max(...q.plan.continuations.map((c) => c.length))));
  if (shared.length + longest > m.contextSize) {
    throw new EngineError('CONTEXT_TOO_LONG', `state and questions take ${shared.length + longest} tokens, over the model's maximum context length of ${m.contextSize} tokens; the state is not truncated`);
  }
  return { shared, questions: planned, longest };
}

function cleanQuestion(q: Question): Question {
  const str = (s: string | null | undefined) => (typeof s === 'string' ? clean(s) : s);
  switch (q.type) {
    case 'choice': return { ...q, instructions: clean(q.instructions), criteria: Object.fromEntries(Object.entries(q.criteria).map(([k, v]) => [clean(k), str(v) ?? null])) };
    case 'score': return { ...q, instructions: clean(q.instructions), criteria: q.criteria.map(clean) };
    case 'noul': return { ...q, instructions: clean(q.instructions), criteria: q.criteria && { true: str(q.criteria.true), false: str(q.criteria.false) } };
  }
}

/**
 * Scores a planned case's questions on a free sequence of the model: the raw label
 * log-probabilities of each question, before normalisation and calibration.
 * @param reuseState false evaluates the state again before every question (the baseline of `npm run bench:generative`; the service always reuses it)
 * @param check called before each question and each {@link STATE_CHUNK} tokens of the state; throws to stop the case (its sequence is freed)
 * @returns natural-log label probabilities per question (in `c.questions` order) and the tokens evaluated (state, question tails and label tokens)
 */
export async function scoreCase(llm: LoadedLlm, c: PlannedCase, reuseState = true, check: () => void = () => {}): Promise<{ logProbs: number[][]; evaluated: number }> {
  return llm.sequences.use(async (seq) => {
    const logProbs: number[][] = [];
    let evaluated = 0;
    for (const q of c.questions) {
      if (seq.nextTokenIndex === 0) {
        for (let at = 0; at < c.shared.length; at += STATE_CHUNK) {
          check();
          await seq.evaluateWithoutGeneratingNewTokens(c.shared.slice(at, at + STATE_CHUNK));
        }
        evaluated += c.shared.length;
      }
      check();
      const scored = await scoreLabels(seq, q.plan);
      evaluated += scored.evaluated;
      logProbs.push(scored.logProbs);
      if (!reuseState) await seq.clearHistory();
    }
    return { logProbs, evaluated };
  });
}

/**
 * Answers a planned case: {@link scoreCase}, then each question's distribution calibrated
 * with the model's temperature for its type and shaped as the spec's answer.
 * @returns the answers keyed by question id, and the tokens evaluated
 */
export async function answerCase(m: DecideModel, c: PlannedCase, reuseState = true, check?: () => void): Promise<{ answers: Record<string, unknown>; evaluated: number }> {
  const { logProbs, evaluated } = await scoreCase(m.llm, c, reuseState, check);
  const answers: Record<string, unknown> = {};
  c.questions.forEach((q, i) => {
    answers[q.id] = answerOf(q.question, q.prompt, calibrated(logProbs[i]!, m.calibration[q.question.type] ?? 1));
  });
  return { answers, evaluated };
}

/** Parses a request event's state and questions (JSON text written by the gateway). @throws EngineError INVALID_REQUEST */
function parseCase(input: DecideRequest): { state: unknown; questions: Record<string, Question> } {
  try {
    const questions = JSON.parse(input.questions) as Record<string, Question>;
    if (typeof questions !== 'object' || questions === null || Object.keys(questions).length === 0) throw new Error('no questions');
    return { state: JSON.parse(input.state) as unknown, questions };
  } catch (err) {
    throw new EngineError('INVALID_REQUEST', `decision event does not hold JSON state and questions: ${(err as Error).message}`);
  }
}

/** The engine of backend `llama-decide` (services/workers/engines/types.ts). */
export function createEngine(ctx: EngineContext): Engine<DecideRequest, DecideOutput> {
  const repo = new ModelRepository(ctx.repository);
  const models = new LoadedModels<DecideModel>(async (name) => {
    const cfg = repo.config(name);
    if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
    const llm = await openLlm(cfg as typeof cfg & GenerativeConfig, cfg.max_batch_size, ctx.intraOpThreads);
    return { llm, calibration: (cfg.calibration ?? {}) as DecideCalibration };
  }, (m) => closeLlm(m.llm));
  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs, control) {
      const m = await models.get(name);
      return Promise.all(inputs.map(async (input, i): Promise<ItemResult<DecideOutput>> => {
        try {
          const { state, questions } = parseCase(input);
          const { answers } = await answerCase(m, planCase(m.llm, state, questions), true, () => checkStop(control, i));
          return { output: { answers: JSON.stringify(answers), decisions: Object.keys(answers).length }, failure: null };
        } catch (err) {
          if (err instanceof EngineError) return failed(err.code, err.message);
          throw err;
        }
      }));
    },
  };
}
