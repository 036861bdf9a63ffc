/**
 * The word-frequency stage (services/capabilities/language-id/vocabulary.ts): the file
 * format as scripts/lid-vocabulary.ts writes it, loading, and the re-ranking, on hand-made
 * counts; and the installed models' vocabulary files.
 */
import { readFileSync } from 'node:fs';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadVocabulary, refineWithVocabulary, topLabels, vocabularyTokens, VOCABULARY_FILE, type VocabularyHeader } from '../../../services/capabilities/language-id/vocabulary.ts';
import { decode, modelInfo } from '../../../services/capabilities/language-id/decode.ts';
import { countWords, vocabularyText } from '../../../scripts/lid-vocabulary.ts';
import type { Pool } from '../../../scripts/lid-data.ts';

const LABELS = ['eng_Latn', 'ind_Latn', 'nld_Latn', 'zsm_Latn'];
const HEADER: Omit<VocabularyHeader, 'entries'> = { version: 1, scale: 1e4, lambda: 1, discount: 0, size_power: 0, max_bonus: null, top_k: 3, max_chars: null, calibration: [{ max_chars: null, temperature: 1 }] };
const WORDS = new Map([
  ['zsm_Latn', [{ counts: new Map([['kerajaan', 30], ['boleh', 20], ['dan', 50]]), total: 1000 }]],
  ['ind_Latn', [{ counts: new Map([['pemerintah', 30], ['bisa', 20], ['dan', 50]]), total: 1000 }]],
  ['nld_Latn', [{ counts: new Map([['kan', 40], ['dan', 10]]), total: 2000 }]],
]);
const file = (text: string) => brotliCompressSync(Buffer.from(text, 'utf8'));
const stageOf = (cap = 10, header = HEADER) => loadVocabulary(file(vocabularyText(WORDS, LABELS, cap, header)), LABELS);
/**
 * The stage stores each bonus in 16 bits, in steps of its largest bonus / 65,535: a log-ratio
 * after `words` words is within half a step per word of the exact one (and no further).
 */
function expectLogRatio(actual: number, exact: number, stage: { unit: number }, words: number): void {
  expect(stage.unit).toBeGreaterThan(0);
  expect(Math.abs(actual - exact)).toBeLessThanOrEqual((words * stage.unit) / 2 + 1e-12);
}

describe('vocabularyText and loadVocabulary', () => {
  it('writes each label\'s most frequent words under a count, and reads them back', () => {
    const text = vocabularyText(WORDS, LABELS, 2, HEADER);
    expect(text.split('\n').slice(1, 4)).toEqual(['@ind_Latn 1000', '50\tdan', '30\tpemerintah']);
    const stage = stageOf(2);
    expect(stage.entries).toBe(6); // 2 words × 3 labels
    expect(stage.words).toBe(4); // dan, pemerintah, kerajaan, kan
  });
  it('counts a word of two blocks of one label at its higher bonus, not both', () => {
    const two = new Map([...WORDS, ['zsm_Latn', [{ counts: new Map([['kerajaan', 30]]), total: 1000 }, { counts: new Map([['kerajaan', 1]]), total: 1e6 }]]]);
    const stage = loadVocabulary(file(vocabularyText(two, LABELS, 10, HEADER)), LABELS);
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    refineWithVocabulary(p, stage, 'kerajaan', 8);
    expectLogRatio(Math.log(p[3]! / p[1]!), Math.log(0.3 / 0.5) + Math.log(301), stage, 1);
  });
  it('reads words of one- to four-byte UTF-8 characters from the file as the text scan hashes them', () => {
    const words = ['kan', 'słowo', 'كتب', 'ጤና', '𐌲𐌿𐍄𐌰'];
    const one = new Map([['nld_Latn', [{ counts: new Map(words.map((w) => [w, 40])), total: 2000 }]]]);
    const stage = loadVocabulary(file(vocabularyText(one, LABELS, 10, HEADER)), LABELS);
    expect(stage.words).toBe(5);
    for (const w of words) {
      const p = Float64Array.from([0.05, 0.5, 0.2, 0.25]);
      expect(refineWithVocabulary(p, stage, w.toUpperCase(), [...w].length), w).toBe(true);
      expect(p[2], w).toBeGreaterThan(0.5);
    }
  });
  it('refuses an unknown version, a label the model does not have and a wrong entry count', () => {
    const text = vocabularyText(WORDS, LABELS, 10, HEADER);
    expect(() => loadVocabulary(file(text.replace('"version":1', '"version":2')), LABELS)).toThrow(/version/);
    expect(() => loadVocabulary(file(text), ['eng_Latn', 'ind_Latn', 'nld_Latn'])).toThrow(/zsm_Latn/);
    expect(() => loadVocabulary(file(text.replace(/"entries":\d+/, '"entries":3')), LABELS)).toThrow(/entries/);
    expect(() => loadVocabulary(file(text.replace(/"entries":\d+/, '"entries":99')), LABELS)).toThrow(/99/);
  });
  it('reads words as the clusters do: lower case, harakat removed, Han skipped', () => {
    const seen: string[] = [];
    vocabularyTokens('Kerajaan BOLEH, كَتَبَ 中文', (w) => seen.push(w));
    expect(seen).toEqual(['kerajaan', 'boleh', 'كتب']);
  });
});

describe('countWords', () => {
  const pool = (train: string[], parallel: string[] = [], lexicon: string[] = []) => ({ train: [...train, ...parallel], parallel: new Set(parallel), lexicon, heldOut: [], lexiconHeldOut: [], heldOutNews: [], sources: new Set<string>() }) as unknown as Pool;
  it('counts parallel lines, the rest and a label\'s word-frequency list as separate parts', () => {
    const pools = new Map([
      ['por_Latn', pool(['O governo disse', 'o governo'], ['Disse o ministro'], ['bom dia'])],
      ['glg_Latn', pool(['O goberno dixo'])],
    ]);
    const lists = new Map([['por_Latn', new Map([['Obrigado', 250], ['não', 600], ["d'água", 5]])], ['xxx_Latn', new Map([['nada', 9]])]]);
    const words = countWords(pools, lists);
    const [parallel, rest, list] = words.get('por_Latn')!;
    expect([...parallel!.counts]).toEqual([['disse', 1], ['o', 1], ['ministro', 1]]);
    expect(rest!.counts.get('governo')).toBe(2);
    expect(rest!.counts.get('dia')).toBe(1); // lexicon entries count in the rest
    // a list's word is read as text is (lower case; split where the text scan splits) and counts its count
    expect([...list!.counts]).toEqual([['obrigado', 250], ['não', 600], ['d', 5], ['água', 5]]);
    expect(list!.total).toBe(860);
    // a label without a list has only its text's parts; a list without a label is not read
    expect(words.get('glg_Latn')).toHaveLength(1);
    expect(words.has('xxx_Latn')).toBe(false);
  });
});

describe('topLabels', () => {
  /** The K largest positive values, largest first, ties to the lower index: a full sort. */
  const reference = (row: ArrayLike<number>, K: number) => Array.from(row, (v, i) => [v, i] as const).filter(([v]) => v > 0).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, K).map(([, i]) => i);
  // a fixed linear congruential generator, so that a failure can be replayed
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  it('finds the same labels as sorting every label, on rows with ties, zeros, subnormals and few positives', () => {
    const top = new Int32Array(25);
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(random() * 700);
      const row = new Float32Array(n);
      for (let c = 0; c < n; c++) {
        const r = random();
        // softmax-like spreads over many binary exponents, repeated values, zeros and subnormals
        row[c] = r < 0.1 ? 0 : r < 0.15 ? 1e-42 : r < 0.3 ? 0.25 : Math.exp(-60 * random());
      }
      for (const K of [1, 2, 25]) {
        const n32 = topLabels(row, K, top);
        expect([...top.subarray(0, n32)]).toEqual(reference(row, K));
        const wide = Float64Array.from(row, (v) => v * (1 + 1e-12 * random())); // distinct in float64, equal in float32
        const n64 = topLabels(wide, K, top);
        expect([...top.subarray(0, n64)]).toEqual(reference(wide, K));
      }
    }
  });
});

describe('refineWithVocabulary', () => {
  const stage = stageOf();
  it('moves the top labels towards the one whose training text writes the words, keeping their mass and the other labels', () => {
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]); // ind first
    expect(refineWithVocabulary(p, stage, 'kerajaan boleh', 14)).toBe(true);
    expect(p[3]).toBeGreaterThan(p[1]!);
    // top 3: ind, zsm and one of the 0.1s (eng comes first); the fourth keeps its 0.1
    expect(p[2]).toBeCloseTo(0.1, 12);
    expect(p[0]! + p[1]! + p[3]!).toBeCloseTo(0.9, 12);
    // zsm's bonus: ln(1 + 1e4·30/1000) + ln(1 + 1e4·20/1000); ind's 0
    const bonus = Math.log(301) + Math.log(201);
    expectLogRatio(Math.log(p[3]! / p[1]!), Math.log(0.3 / 0.5) + bonus, stage, 2);
  });
  it('discounts each count by D', () => {
    const discounted = stageOf(10, { ...HEADER, discount: 0.5 });
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    refineWithVocabulary(p, discounted, 'kerajaan boleh', 14);
    expectLogRatio(Math.log(p[3]! / p[1]!), Math.log(0.3 / 0.5) + Math.log(1 + 1e4 * 29.5 / 1000) + Math.log(1 + 1e4 * 19.5 / 1000), discounted, 2);
  });
  it('changes nothing when no top label writes a word of the text', () => {
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    expect(refineWithVocabulary(p, stage, 'xyzzy plugh', 11)).toBe(false);
    expect([...p]).toEqual([0.1, 0.5, 0.1, 0.3]);
  });
  it('counts a word once per occurrence and leaves excluded labels (probability 0) at 0', () => {
    const p = Float64Array.from([0, 0.6, 0, 0.4]);
    refineWithVocabulary(p, stage, 'dan dan kerajaan', 16);
    expect(p[0]).toBe(0);
    expect(p[2]).toBe(0);
    expect(p[3]).toBeGreaterThan(p[1]!);
  });
  it('multiplies each rate by (N / 10⁶)^α', () => {
    const sized = stageOf(10, { ...HEADER, size_power: 0.5 });
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    refineWithVocabulary(p, sized, 'boleh', 5);
    expectLogRatio(Math.log(p[3]! / p[1]!), Math.log(0.3 / 0.5) + Math.log(1 + 1e4 * 20 / 1000 * Math.sqrt(1000 / 1e6)), sized, 1);
  });
  it('leaves texts longer than max_chars alone', () => {
    const short = stageOf(10, { ...HEADER, max_chars: 10 });
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    expect(refineWithVocabulary(p, short, 'kerajaan boleh', 14)).toBe(false);
    expect(refineWithVocabulary(p, short, 'kerajaan', 8)).toBe(true);
  });
  it('limits one word\'s bonus to B before λ', () => {
    const capped = stageOf(10, { ...HEADER, lambda: 2, max_bonus: 3 });
    const p = Float64Array.from([0.1, 0.5, 0.1, 0.3]);
    refineWithVocabulary(p, capped, 'kerajaan boleh', 14);
    expectLogRatio(Math.log(p[3]! / p[1]!), Math.log(0.3 / 0.5) + 2 * (3 + 3), capped, 2);
  });
  it('divides the scores by the temperature of the text\'s length', () => {
    const hot = stageOf(10, { ...HEADER, calibration: [{ max_chars: 12, temperature: 2 }, { max_chars: null, temperature: 1 }] });
    const [a, b] = [Float64Array.from([0.1, 0.5, 0.1, 0.3]), Float64Array.from([0.1, 0.5, 0.1, 0.3])];
    refineWithVocabulary(a, hot, 'boleh', 5);
    refineWithVocabulary(b, stage, 'boleh', 5);
    expect(Math.log(a[3]! / a[1]!)).toBeCloseTo(Math.log(b[3]! / b[1]!) / 2, 5);
  });
  it('runs in decode after the clusters', () => {
    const logits = Float32Array.from([0, 2, 0, 1.5]);
    const opts = { mode: 'coverage' as const, topK: 4, candidates: null };
    expect(decode(logits, modelInfo(LABELS, {}, 1, undefined, stage), 'kerajaan boleh', new Set(['Latn']), opts).label).toBe('zsm_Latn');
    expect(decode(logits, modelInfo(LABELS, {}, 1), 'kerajaan boleh', new Set(['Latn']), opts).label).toBe('ind_Latn');
  });
});

describe.each(['lid-neural-608', 'lid-lite-608'])('%s vocabulary file', (model) => {
  it('loads with the model\'s labels, with λ > 0 and a temperature per length bucket', () => {
    const labels = JSON.parse(readFileSync(new URL(`../../../models/${model}/labels.json`, import.meta.url), 'utf8')) as string[];
    const stage = loadVocabulary(readFileSync(new URL(`../../../models/${model}/${VOCABULARY_FILE}`, import.meta.url)), labels);
    expect(stage.lambda).toBeGreaterThan(0);
    expect(stage.words).toBeGreaterThan(100_000);
    expect(stage.calibration.at(-1)!.maxChars).toBeNull();
  });
});
