/**
 * The extraction evaluation (scripts/extract-eval.ts), the project's labelled extraction
 * set (eval/extraction.jsonl) and the field-confidence temperature
 * (services/capabilities/extract/calibration.ts), with `npm run calibrate` and
 * `npm run eval:generative` on the tiny extraction weights.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldEce, fitFieldTemperature, type FieldOutcome } from '../../../services/capabilities/extract/calibration.ts';
import { parseTemplate } from '../../../services/route-kit/validation.ts';
import { extractionSet } from '../../../scripts/extract-set.ts';
import { prf, scoreFields } from '../../../scripts/extract-eval.ts';
import { rng } from '../../../scripts/rng.ts';
import { MODELS, repositoryWith, useTinyWeights } from '../../helpers/llm.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const weights = useTinyWeights();
/** Short strings and lists: the tiny random model writes each to its limit. */
const SHORT = { max_value_chars: 24, max_list_items: 3 };
const shortRepo = repositoryWith({ 'mist-extract-1.0': SHORT, 'mist-extract-flash-1.0': SHORT });

describe('field-level scoring', () => {
  const template = { merchant: 'verbatim-string', town: 'string', total: 'number', items: [{ name: 'string', qty: 'integer' }], tags: ['string'] };
  const gold = { merchant: 'NAIVAS', town: 'Nairobi', total: 12.5, items: [{ name: 'Bread', qty: 2 }], tags: ['food', 'cash'] };
  it('scores a perfect answer 1', () => {
    const s = scoreFields(template, gold, gold, { merchant: 1, town: 1, total: 1, items: [{ name: 1, qty: 1 }], tags: [1, 1] });
    expect(s).toMatchObject({ tp: 7, fp: 0, fn: 0 });
    expect(prf(s).f1).toBe(1);
  });
  it('counts wrong, missing and extra values', () => {
    const data = { merchant: 'naivas', town: 'NAIROBI', total: null, items: [{ name: 'bread', qty: 3 }, { name: 'Milk', qty: 1 }], tags: ['cash', 'fuel'] };
    const s = scoreFields(template, gold, data, { merchant: 0.9, town: 0.8, total: 0.1, items: [{ name: 0.7, qty: 0.6 }, { name: 0.5, qty: 0.4 }], tags: [0.3, 0.2] });
    // right: town (case-insensitive string), items[0].name, tags "cash"; wrong: merchant (verbatim), qty 3, the extra item's 2 leaves, tag "fuel"
    expect(s).toMatchObject({ tp: 3, fp: 5, fn: 4 });
    expect(s.predicted.filter((p) => p.correct).map((p) => p.confidence).sort()).toEqual([0.3, 0.7, 0.8]);
  });
});

describe('the labelled extraction set', () => {
  it('is what scripts/extract-set.ts writes, with templates the gateway accepts and labels of their shape', () => {
    const committed = readFileSync(join(ROOT, 'eval', 'extraction.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(committed).toEqual(JSON.parse(JSON.stringify(extractionSet())));
    for (const d of committed) {
      parseTemplate(d.template);
      // the labels are a perfect answer of their own template
      expect(prf(scoreFields(d.template, d.labels, d.labels, null)).f1).toBe(1);
      for (const [k, leaf] of Object.entries(d.template as Record<string, unknown>)) if (leaf === 'verbatim-string') expect(d.text).toContain(d.labels[k]);
    }
    expect(new Set(committed.map((d: { kind: string }) => d.kind))).toEqual(new Set(['mobile-money', 'bank', 'receipt', 'bill', 'letter', 'form']));
  });
});

describe('field-confidence temperature', () => {
  it('recovers the temperature that generated the outcomes, and lowers ECE', () => {
    // outcomes right with probability c^(1/2): confidences too low by a temperature of 2
    const r = rng(3);
    const make = (n: number): FieldOutcome[] => Array.from({ length: n }, () => { const c = r() ** 2; return { confidence: c, correct: r() < Math.sqrt(c) }; });
    const fit = make(4000), held = make(4000);
    const t = fitFieldTemperature(fit);
    expect(t).toBeGreaterThan(1.7);
    expect(t).toBeLessThan(2.3);
    expect(fieldEce(held, t)).toBeLessThan(fieldEce(held, 1) / 2);
  });
});

describe('npm run calibrate and eval:generative for extraction on the tiny weights', () => {
  const run = (script: string, args: string[], env: Record<string, string>) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', script), ...args], {
    cwd: ROOT, encoding: 'utf8', timeout: 500_000, env: { ...process.env, ...env },
  });
  it('fits the field temperature and writes it to config.json', () => {
    const repo = mkdtempSync(join(tmpdir(), 'calibrate-'));
    mkdirSync(join(repo, 'mist-extract-flash-1.0'));
    // short strings: the tiny random model writes each string to its limit
    writeFileSync(join(repo, 'mist-extract-flash-1.0', 'config.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(MODELS, 'mist-extract-flash-1.0', 'config.json'), 'utf8')), ...SHORT }));
    const data = join(repo, 'set.jsonl');
    writeFileSync(data, extractionSet().filter((_d, i) => i % 20 === 0).map((d) => JSON.stringify(d)).join('\n'));
    const r = run('calibrate.ts', ['--model', 'mist-extract-flash-1.0', '--data', data], { MODEL_REPOSITORY: repo, MODEL_WEIGHTS_DIR: weights });
    expect(r.status, r.stderr).toBe(0);
    const cfg = JSON.parse(readFileSync(join(repo, 'mist-extract-flash-1.0', 'config.json'), 'utf8'));
    expect(cfg.calibration.field).toBeGreaterThanOrEqual(0.05);
    expect(cfg.calibration.field).toBeLessThanOrEqual(20);
  });
  it('prints precision, recall and F1 per document kind', () => {
    const r = run('eval-generative.ts', ['--models', weights, '--only', 'extract', '--limit', '3'], { MODEL_REPOSITORY: shortRepo });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/extraction: mist-extract-1\.0/);
    expect(r.stdout).toMatch(/extraction: mist-extract-flash-1\.0/);
    expect(r.stdout).toContain('F1 %');
  });
});
