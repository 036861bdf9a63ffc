/**
 * The word-level rescoring of the diacnet models (services/capabilities/diacritize/word-lm.ts):
 * the language model's probabilities sum to one, the decoder follows the context where
 * the network hesitates, keeps the network's form for words the lexicon lacks and the
 * caller's typed marks, and the counts (scripts/word-lm.ts) prune as documented.
 */
import { describe, expect, it } from 'vitest';
import { units } from '../../../services/capabilities/diacritize/marks.ts';
import { classOf, restore, slotsOf, type TaggerCandidates } from '../../../services/capabilities/diacritize/tagger.ts';
import { decodeText, END, START, WordLm, type WordLmSpec } from '../../../services/capabilities/diacritize/word-lm.ts';
import { wordLmText } from '../../../scripts/word-lm.ts';

const SPEC: WordLmSpec = { file: '', char_weight: { default: 1 }, discount: 0.7, unigram_add: 0.5, max_candidates: 8, order: 3 };
/** Vietnamese training lines where "ga" after "con" is always "gà", and "ga" alone is "ga" (station). */
const LINES = ['con gà ăn thóc', 'con gà gáy', 'ga tàu hỏa', 'nhà ga lớn', 'ga tàu', 'con gà con', 'một con gà'];
const CLASSES = ['', '\u0300', '\u0301', '\u0303', '\u0309', '\u0323', '\u0302', '\u0302\u0300', '\u0306', '\u031b', '=đ'];

function lm(lines = LINES, spec = SPEC): WordLm {
  const m = new WordLm(spec);
  m.parse(wordLmText(new Map([['vie', lines]]), 1));
  return m;
}

/** Every letter of the text may take any class; the network's probabilities per slot come from `pick`. */
function plan(text: string, pick: (base: string, k: number) => Record<string, number>) {
  const cands: TaggerCandidates = { vie: Object.fromEntries([...'abcdefghijklmnopqrstuvwxyz'].map((b) => [b, CLASSES.map((_, i) => i)])) };
  const us = units(text);
  const slots = slotsOf(us, text, cands.vie);
  const probs = new Float32Array(slots.length * CLASSES.length).fill(1e-4);
  slots.forEach((s, k) => {
    const p = pick(us[s.unit]!.base, k);
    for (const [cls, v] of Object.entries(p)) probs[k * CLASSES.length + CLASSES.indexOf(cls)] = v;
    if (Object.keys(p).length === 0) probs[k * CLASSES.length] = 0.99;
  });
  return { us, slots, probs };
}

describe('word language model', () => {
  it('gives probabilities that sum to one over the vocabulary, in every context', () => {
    const m = lm(LINES, { ...SPEC, unigram_add: 0.5 });
    const vocab = [...new Set(LINES.flatMap((l) => l.split(' '))), END];
    for (const [p2, p] of [[START, START], [START, 'con'], ['con', 'gà'], ['nhà', 'ga'], ['xyz', 'con']] as const) {
      // the unseen-form mass: a form outside the vocabulary stands for all of them
      const unseen = Math.exp(m.logProb('vie', p2, p, 'qqq'));
      const sum = vocab.reduce((s, w) => s + Math.exp(m.logProb('vie', p2, p, w)), 0) + unseen;
      expect(sum).toBeCloseTo(1, 5);
    }
    expect(m.logProb('vie', START, 'con', 'gà')).toBeGreaterThan(m.logProb('vie', START, 'con', 'ga'));
  });

  it('prunes n-grams seen once but keeps their followers, so the mass moves to the lower order', () => {
    const text = wordLmText(new Map([['vie', LINES]]), 2);
    expect(text).toMatch(/^B\tvie\tcon\tgà\t4\t/m);
    expect(text).not.toMatch(/^B\tvie\tnhà\tga\t/m);
    expect(text).toMatch(/^U\tvie\tnhà\t1\t1$/m);
    const m = new WordLm(SPEC);
    m.parse(text);
    expect(Math.exp(m.logProb('vie', null, 'nhà', 'ga'))).toBeGreaterThan(0);
  });
});

describe('word-level decoding', () => {
  const acuteOrGrave = (base: string): Record<string, number> => (base === 'a' ? { '': 0.55, '\u0300': 0.45 } : {});

  it('follows the context where the network hesitates: "con ga" → "con gà", "ga tau" → "ga tàu"', () => {
    const m = lm();
    for (const [text, want] of [['con ga an', 'con gà an'], ['ga tau', 'ga tàu']] as const) {
      const { us, slots, probs } = plan(text, acuteOrGrave);
      const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
      expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe(want);
      // without the decoder, the network's best (no mark) everywhere
      expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true })).toBe(text);
    }
  });

  it('keeps the network\'s form for a word the lexicon lacks, and the case of the input', () => {
    const m = lm();
    const { us, slots, probs } = plan('Con ga Xyza', (b): Record<string, number> => (b === 'a' ? { '\u0301': 0.9, '': 0.1 } : {}));
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    // "ga" after "con": the lexicon's gà outweighs the network's gá only when the network hesitates
    const out = restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen });
    expect(out.endsWith('Xyzá')).toBe(true);
    expect(out.startsWith('Con g')).toBe(true);
  });

  it('keeps marks the caller typed unless the network rejects them', () => {
    const m = lm();
    const typed = 'con gá';
    const { us, slots, probs } = plan(typed, acuteOrGrave);
    const k = slots.findIndex((s) => us[s.unit]!.text === 'á');
    probs[k * CLASSES.length + CLASSES.indexOf(classOf('á', 'a'))] = 0.05;
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe('con gá');
    probs[k * CLASSES.length + CLASSES.indexOf(classOf('á', 'a'))] = 0.001;
    const again = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: again })).toBe('con gà');
  });

  it('answers the same with a bigram model where the context is one word', () => {
    const m = lm(LINES, { ...SPEC, order: 2 });
    const { us, slots, probs } = plan('mot con ga', acuteOrGrave);
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe('mot con gà');
  });
});
