/**
 * Temperature scaling of decisions (services/capabilities/decide/calibration.ts), the
 * project's labelled decision set (eval/decisions.jsonl) and `npm run calibrate` /
 * `npm run eval:generative` on the tiny weights.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eceAt, fitTemperature, nll, type ScoredItem } from '../../../services/capabilities/decide/calibration.ts';
import { questionPrompt, type Question } from '../../../services/capabilities/decide/prompt.ts';
import { rng } from '../../../scripts/rng.ts';
import { decisionSet } from '../../../scripts/decide-set.ts';
import { MODELS, useTinyWeights } from '../../helpers/llm.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const weights = useTinyWeights();

/** Items whose correct answers are drawn from softmax(logits / T0): a model that is miscalibrated by T0. */
function synthetic(t0: number, n: number, seed: number): ScoredItem[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const logProbs = Array.from({ length: 4 }, () => (r() - 0.5) * 8);
    const e = logProbs.map((l) => Math.exp(l / t0));
    const sum = e.reduce((a, b) => a + b, 0);
    let u = r() * sum, gold = 0;
    while (u > e[gold]! && gold < 3) { u -= e[gold]!; gold++; }
    return { logProbs, gold };
  });
}

describe('temperature scaling', () => {
  it('recovers the temperature that generated the answers', () => {
    for (const t0 of [0.5, 1, 2.5]) expect(fitTemperature(synthetic(t0, 4000, 7))).toBeCloseTo(t0, 0);
  });
  it('never does worse than T = 1 on what it fitted, and lowers ECE on fresh items', () => {
    const fit = synthetic(3, 2000, 1), held = synthetic(3, 2000, 2);
    const t = fitTemperature(fit);
    expect(nll(fit, t)).toBeLessThanOrEqual(nll(fit, 1));
    expect(eceAt(held, t)).toBeLessThan(eceAt(held, 1) / 2);
  });
  it('returns 1 for no items', () => expect(fitTemperature([])).toBe(1));
});

describe('the labelled decision set', () => {
  it('is what scripts/decide-set.ts writes, with a valid label for every question', () => {
    const committed = readFileSync(join(ROOT, 'eval', 'decisions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(committed).toEqual(JSON.parse(JSON.stringify(decisionSet())));
    let decisions = 0;
    for (const c of committed) {
      for (const [id, q] of Object.entries(c.questions as Record<string, Question>)) {
        expect(questionPrompt(q).keys).toContain(c.labels[id]);
        decisions++;
      }
    }
    expect(decisions).toBeGreaterThanOrEqual(400);
    expect(new Set(committed.map((c: { language: string }) => c.language))).toEqual(new Set(['eng', 'swh', 'hau', 'yor', 'ibo', 'amh', 'zul', 'kin', 'som']));
  });
});

describe('npm run calibrate and npm run eval:generative on the tiny weights', () => {
  const run = (script: string, args: string[], env: Record<string, string>) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', script), ...args], {
    cwd: ROOT, encoding: 'utf8', timeout: 500_000, env: { ...process.env, ...env },
  });
  it('fits a temperature per question type and writes them to config.json', () => {
    const repo = mkdtempSync(join(tmpdir(), 'calibrate-'));
    cpSync(join(MODELS, 'purplemist-flash-1.0', 'config.json'), join(repo, 'purplemist-flash-1.0', 'config.json'));
    const data = join(repo, 'set.jsonl');
    writeFileSync(data, decisionSet().filter((_c, i) => i % 8 === 0).map((c) => JSON.stringify(c)).join('\n'));
    const r = run('calibrate.ts', ['--model', 'purplemist-flash-1.0', '--data', data], { MODEL_REPOSITORY: repo, MODEL_WEIGHTS_DIR: weights });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ECE before %/);
    const cfg = JSON.parse(readFileSync(join(repo, 'purplemist-flash-1.0', 'config.json'), 'utf8'));
    for (const t of ['choice', 'noul', 'score']) {
      expect(cfg.calibration[t]).toBeGreaterThanOrEqual(0.05);
      expect(cfg.calibration[t]).toBeLessThanOrEqual(20);
    }
    expect(cfg.backend).toBe('llama-decide');
  });
  it('reports accuracy and ECE per type and language', () => {
    const r = run('eval-generative.ts', ['--models', weights, '--only', 'decide'], {});
    expect(r.status, r.stderr).toBe(0);
    for (const row of ['type choice', 'language swh', 'language som']) expect(r.stdout).toContain(row);
  });
  it('says a model without weights is not installed', () => {
    const r = run('calibrate.ts', ['--model', 'purplemist-flash-1.0'], { MODEL_WEIGHTS_DIR: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not installed/);
  });
});
