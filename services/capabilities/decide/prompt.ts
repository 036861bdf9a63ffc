/**
 * The prompt of a decision (docs/decide.md): a system message, then one user message
 * holding the state first and one question after it, answered by a label. All questions
 * of a case share the system message and the state, so a sequence evaluates those once
 * and each question is evaluated after them (spec: "All questions of one request share
 * one pass over the state"). Options and levels are shown with letter labels of one
 * length ("A"…"Z", then "AA"…"JU" for more than 26 options) and a statement is answered
 * "true" or "false": no label is the start of another, so their tokens are prefix-free
 * (services/llm/labels.ts).
 */

/** A question as the request carries it (spec: "Decision request"). */
export type Question =
  | { type: 'choice'; instructions: string; criteria: Record<string, string | null> }
  | { type: 'noul'; instructions: string; criteria?: { true?: string | null; false?: string | null } }
  | { type: 'score'; instructions: string; criteria: string[] };

/** The system message of every decision. */
export const SYSTEM = 'You decide questions about a record or message (the state). Read the state, then answer the question with the label of one answer only, without explanation.';

/** The user message's head: the state (a string as written; an object or array as JSON). */
export function stateBlock(state: unknown): string {
  return `State:\n${typeof state === 'string' ? state : JSON.stringify(state, null, 1)}\n\n`;
}

/** Letter labels of one length for `n` answers: A…Z for up to 26, else two letters (AA, AB, …). */
export function letterLabels(n: number): string[] {
  const A = 'A'.charCodeAt(0);
  if (n <= 26) return Array.from({ length: n }, (_, i) => String.fromCharCode(A + i));
  return Array.from({ length: n }, (_, i) => String.fromCharCode(A + Math.floor(i / 26), A + (i % 26)));
}

/** A question's text after the state and the labels its answers are read from, in the order of its answer keys. */
export interface QuestionPrompt {
  text: string;
  labels: string[];
  /** the answer key of each label: option keys (choice), level indices (score), "true"/"false" (noul) */
  keys: string[];
}

/** The text and labels of one question. */
export function questionPrompt(q: Question): QuestionPrompt {
  switch (q.type) {
    case 'choice': {
      const keys = Object.keys(q.criteria);
      const labels = letterLabels(keys.length);
      const lines = keys.map((k, i) => `${labels[i]}. ${k}${q.criteria[k] ? `: ${q.criteria[k]}` : ''}`);
      return { text: `Question: ${q.instructions}\nOptions:\n${lines.join('\n')}\nAnswer with the letter of the best option.`, labels, keys };
    }
    case 'score': {
      const labels = letterLabels(q.criteria.length);
      const lines = q.criteria.map((d, i) => `${labels[i]}. ${d}`);
      return { text: `Question: ${q.instructions}\nLevels, lowest first:\n${lines.join('\n')}\nAnswer with the letter of the level that fits.`, labels, keys: q.criteria.map((_, i) => String(i)) };
    }
    case 'noul': {
      const meaning = [q.criteria?.true ? `true means: ${q.criteria.true}` : '', q.criteria?.false ? `false means: ${q.criteria.false}` : ''].filter(Boolean).join('; ');
      return { text: `Statement: ${q.instructions}${meaning ? `\n(${meaning})` : ''}\nIs the statement true? Answer true or false.`, labels: ['true', 'false'], keys: ['true', 'false'] };
    }
  }
}
