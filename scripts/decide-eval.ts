/**
 * Scoring a labelled decision set (eval/decisions.jsonl, scripts/decide-set.ts) on a
 * decision model, shared by `npm run calibrate` and `npm run eval:generative`: every
 * case is planned and scored as the service does (services/capabilities/decide/backends/
 * llama-decide.ts), and each question becomes a labelled item with its raw label
 * log-probabilities.
 */
import { readFileSync } from 'node:fs';
import { planCase, scoreCase } from '../services/capabilities/decide/backends/llama-decide.ts';
import type { ScoredItem } from '../services/capabilities/decide/calibration.ts';
import type { Question } from '../services/capabilities/decide/prompt.ts';
import type { LoadedLlm } from '../services/llm/model.ts';
import type { LabelledCase } from './decide-set.ts';

/** A scored question of the set. */
export interface SetItem extends ScoredItem {
  case: string;
  language: string;
  type: Question['type'];
}

/**
 * Reads a labelled set (JSON lines).
 * @throws Error naming the line of a case that is not JSON or lacks a label for a question
 */
export function readSet(file: string): LabelledCase[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((line, i) => {
    let c: LabelledCase;
    try { c = JSON.parse(line) as LabelledCase; } catch { throw new Error(`${file}:${i + 1}: not JSON`); }
    for (const q of Object.keys(c.questions ?? {})) if (c.labels?.[q] === undefined) throw new Error(`${file}:${i + 1}: no label for question ${q}`);
    return c;
  });
}

/**
 * Scores every question of every case.
 * @param onCase called after each case (progress)
 */
export async function scoreSet(llm: LoadedLlm, cases: readonly LabelledCase[], onCase?: (done: number) => void): Promise<SetItem[]> {
  const items: SetItem[] = [];
  let done = 0;
  for (const c of cases) {
    const planned = planCase(llm, c.state, c.questions as Record<string, Question>);
    const { logProbs } = await scoreCase(llm, planned);
    planned.questions.forEach((q, i) => {
      const gold = q.prompt.keys.indexOf(c.labels[q.id]!);
      if (gold < 0) throw new Error(`case ${c.id}: label ${JSON.stringify(c.labels[q.id])} of ${q.id} is not one of its answers (${q.prompt.keys.join(', ')})`);
      items.push({ case: c.id, language: c.language, type: q.question.type, logProbs: logProbs[i]!, gold });
    });
    onCase?.(++done);
  }
  return items;
}
