/**
 * Scoring a closed set of answers by the model's next-token probabilities, never by
 * sampling (the option scoring of `/v1/decide`). Each answer is a label ("A", "B", …,
 * "true") written where the model's answer starts; a label may take several tokens, in
 * which case its probability is the product of its tokens' conditional probabilities
 * (the chain rule), read from one evaluation per shared token prefix (a token trie).
 * Labels of one length in characters are prefix-free as token sequences, so no label's
 * tokens end inside another's.
 */
import { LlamaText, type LlamaContextSequence, type Token, type Tokenizer } from 'node-llama-cpp';

/** How a prompt's tail and its labels tokenize: the tokens evaluated before any label, and each label's own tokens. */
export interface LabelPlan {
  /** the tail's tokens up to where the labels' tokens start to differ */
  prompt: Token[];
  /** each label's tokens after `prompt` (never empty, none a prefix of another) */
  continuations: Token[][];
}

/**
 * Tokenizes a prompt tail followed by each label, and cuts at the longest token prefix all
 * share (so the tokenizer's merges across the boundary are those of the full text).
 * @throws Error when a label's tokens are empty after the shared prefix, or a prefix of another label's (labels of unequal length, or two equal labels)
 */
export function planLabels(tokenizer: Tokenizer, tail: LlamaText, labels: readonly string[]): LabelPlan {
  const full = labels.map((l) => LlamaText([...tail.values, l]).tokenize(tokenizer));
  let common = 0;
  const first = full[0]!;
  // every label keeps at least one token of its own
  const most = Math.min(...full.map((f) => f.length)) - 1;
  while (common < most && full.every((f) => f[common] === first[common])) common++;
  return cutAt(full, common, labels);
}

function cutAt(full: Token[][], at: number, labels: readonly string[]): LabelPlan {
  const continuations = full.map((f) => f.slice(at));
  const keys = continuations.map((c) => c.join(','));
  continuations.forEach((c, i) => {
    if (c.length === 0) throw new Error(`label ${JSON.stringify(labels[i])} has no tokens of its own`);
    for (let j = 0; j < continuations.length; j++) {
      if (j !== i && keys[j]!.startsWith(`${keys[i]},`)) throw new Error(`label ${JSON.stringify(labels[i])} tokenizes as a prefix of ${JSON.stringify(labels[j])}`);
      if (j > i && keys[j] === keys[i]) throw new Error(`labels ${JSON.stringify(labels[i])} and ${JSON.stringify(labels[j])} tokenize alike`);
    }
  });
  return { prompt: full[0]!.slice(0, at), continuations };
}

/** A token trie node: the labels ending here and the children by next token. */
interface TrieNode { children: Map<Token, TrieNode>; label: number; }

function trieOf(continuations: Token[][]): TrieNode {
  const root: TrieNode = { children: new Map(), label: -1 };
  continuations.forEach((c, i) => {
    let n = root;
    for (const t of c) {
      let next = n.children.get(t);
      if (!next) { next = { children: new Map(), label: -1 }; n.children.set(t, next); }
      n = next;
    }
    n.label = i;
  });
  return root;
}

/**
 * Log-probabilities of labels after the sequence's current state: evaluates `plan.prompt`
 * (the tail) and then, depth first, each token shared by more than one label or followed
 * by more tokens, reading the next-token distribution at each; the sequence is rolled back
 * to where it was after each call, so the next tail reuses the same evaluated prefix.
 * @returns one natural-log probability per label (not normalised over the labels) and the tokens evaluated
 */
export async function scoreLabels(seq: LlamaContextSequence, plan: LabelPlan): Promise<{ logProbs: number[]; evaluated: number }> {
  const start = seq.nextTokenIndex;
  const logProbs = new Array<number>(plan.continuations.length).fill(-Infinity);
  let evaluated = 0;
  const evalNext = async (tokens: Token[]): Promise<ReadonlyMap<Token, number>> => {
    if (tokens.length === 0) throw new Error('nothing to evaluate before the labels');
    evaluated += tokens.length;
    const out = await seq.controlledEvaluate([...tokens.slice(0, -1), [tokens.at(-1)!, { generateNext: { probabilities: true } }]]);
    const probs = out.at(-1)?.next.probabilities;
    if (!probs) throw new Error('llama.cpp returned no next-token probabilities');
    return probs;
  };
  const visit = async (node: TrieNode, probs: ReadonlyMap<Token, number>, logP: number): Promise<void> => {
    for (const [token, child] of node.children) {
      const lp = logP + Math.log(probs.get(token) ?? 0);
      if (child.label >= 0) logProbs[child.label] = lp;
      if (child.children.size > 0 && lp > -Infinity) {
        const mark = seq.nextTokenIndex;
        await visit(child, await evalNext([token]), lp);
        await seq.eraseContextTokenRanges([{ start: mark, end: seq.nextTokenIndex }]);
      }
    }
  };
  try {
    await visit(trieOf(plan.continuations), await evalNext(plan.prompt), 0);
  } finally {
    if (seq.nextTokenIndex > start) await seq.eraseContextTokenRanges([{ start, end: seq.nextTokenIndex }]);
  }
  return { logProbs, evaluated };
}
