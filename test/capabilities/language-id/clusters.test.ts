/**
 * The second stage of confusable clusters (services/capabilities/language-id/clusters.ts):
 * features, loading, and the re-ranking of a cluster's members, on hand-made weights;
 * and the installed models' clusters files.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CLUSTERS_FILE, clusterFeatures, loadClusterStages, refineWithClusters, type ClusterFile } from '../../../services/capabilities/language-id/clusters.ts';
import { decode, modelInfo } from '../../../services/capabilities/language-id/decode.ts';

const LABELS = ['dan_Latn', 'eng_Latn', 'nno_Latn', 'nob_Latn'];
const FILE: ClusterFile = {
  version: 1,
  clusters: [{ members: ['nob_Latn', 'nno_Latn'], lambda: 2, weights: { 'w:ikkje': [-1, 1], 'w:ikke': [1, -1], 'b:eg veit': [-0.5, 0.5] } }],
};

describe('clusterFeatures', () => {
  it('gives lower-case words and neighbouring word pairs, each once', () => {
    expect(clusterFeatures('Eg veit IKKJE, eg veit ikkje!').sort()).toEqual(['b:eg veit', 'b:ikkje eg', 'b:veit ikkje', 'w:eg', 'w:ikkje', 'w:veit'].sort());
  });
  it('drops Arabic harakat and tatweel, so vowelled and unvowelled text give the same words', () => {
    expect(clusterFeatures('كَتَبَ الوَلَدُ')).toEqual(clusterFeatures('كتب الولـد'));
  });
  it('gives single characters and character pairs for Han, which has no spaces between words', () => {
    expect(clusterFeatures('佢哋').sort()).toEqual(['c:佢', 'c:佢哋', 'c:哋'].sort());
  });
  it('pairs words across punctuation but not across a Han run', () => {
    expect(clusterFeatures('ja, nei')).toContain('b:ja nei');
    const f = clusterFeatures('abc 中文 def');
    expect(f).toContain('c:中文');
    expect(f).not.toContain('b:abc def');
  });
  it('scores each feature once per text, as the trainer counts it', () => {
    const stages = loadClusterStages({ version: 1, clusters: [{ members: ['nob_Latn', 'nno_Latn'], lambda: 1, weights: { 'w:ikkje': [-1, 1] } }] }, LABELS);
    const once = Float64Array.from([0, 0, 0.4, 0.6]), twice = Float64Array.from([0, 0, 0.4, 0.6]);
    refineWithClusters(once, stages, 'ikkje');
    refineWithClusters(twice, stages, 'ikkje ikkje ikkje');
    expect(twice[2]).toBeCloseTo(once[2]!, 12);
  });
  it('reads at most 2,000 characters', () => {
    expect(clusterFeatures(`${'a '.repeat(1000)}zzz`)).not.toContain('w:zzz');
  });
});

describe('loadClusterStages', () => {
  it('refuses a label the model does not have and a weight row of the wrong length', () => {
    expect(() => loadClusterStages({ version: 1, clusters: [{ members: ['nob_Latn', 'swe_Latn'], lambda: 1, weights: {} }] }, LABELS)).toThrow(/swe_Latn/);
    expect(() => loadClusterStages({ version: 1, clusters: [{ members: ['nob_Latn', 'nno_Latn'], lambda: 1, weights: { 'w:x': [1] } }] }, LABELS)).toThrow(/1 weights for 2 members/);
    expect(() => loadClusterStages({ version: 2 as 1, clusters: [] }, LABELS)).toThrow(/version/);
  });
});

describe('refineWithClusters', () => {
  const stages = loadClusterStages(FILE, LABELS);
  it('re-ranks the members when the best label is in the cluster, keeping the cluster\'s mass and the other labels', () => {
    const p = Float64Array.from([0.05, 0.05, 0.3, 0.6]); // nob first
    expect(refineWithClusters(p, stages, 'eg veit ikkje')).toBe(true);
    // s = (-1.5, 1.5) for (nob, nno) from "ikkje" and "eg veit"; p ∝ p1 · exp(2 s)
    const nob = 0.6 * Math.exp(-3), nno = 0.3 * Math.exp(3);
    expect(p[2]).toBeCloseTo((0.9 * nno) / (nob + nno), 6);
    expect(p[3]).toBeCloseTo((0.9 * nob) / (nob + nno), 6);
    expect([p[0], p[1]]).toEqual([0.05, 0.05]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });
  it('leaves the row as it is for a text without known features', () => {
    const p = Float64Array.from([0.05, 0.05, 0.3, 0.6]);
    refineWithClusters(p, stages, 'heilt andre ord');
    [0.05, 0.05, 0.3, 0.6].forEach((x, i) => expect(p[i]).toBeCloseTo(x, 12));
  });
  it('does nothing when the best label is outside every cluster', () => {
    const p = Float64Array.from([0.05, 0.6, 0.3, 0.05]);
    expect(refineWithClusters(p, stages, 'ikkje')).toBe(false);
    expect([...p]).toEqual([0.05, 0.6, 0.3, 0.05]);
  });
  it('keeps a member the first stage excluded (candidates, script mask) at 0', () => {
    const p = Float64Array.from([0, 0.1, 0, 0.9]);
    refineWithClusters(p, stages, 'eg veit ikkje');
    expect(p[2]).toBe(0);
    [0, 0.1, 0, 0.9].forEach((x, i) => expect(p[i]).toBeCloseTo(x, 12));
  });
  it('is applied by decode()', () => {
    const info = modelInfo(LABELS, { dan: 6e6, eng: 1.5e9, nno: 5e5, nob: 4.5e6 }, 1, FILE);
    const logits = [0, 0, 1, 1.5];
    const opts = { mode: 'coverage' as const, topK: 4, candidates: null };
    expect(decode(logits, info, 'eg veit ikkje', new Set(['Latn']), opts).label).toBe('nno_Latn');
    expect(decode(logits, modelInfo(LABELS, {}, 1), 'eg veit ikkje', new Set(['Latn']), opts).label).toBe('nob_Latn');
  });
});
describe.each(['lid-neural-608', 'lid-lite-608'])('%s clusters file', (model) => {
  const path = new URL(`../../../models/${model}/${CLUSTERS_FILE}`, import.meta.url);
  it('names only the model\'s labels, with λ > 0 and one weight per member', () => {
    const file = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as ClusterFile;
    const labels = JSON.parse(readFileSync(new URL(`../../../models/${model}/labels.json`, import.meta.url), 'utf8')) as string[];
    expect(() => loadClusterStages(file, labels)).not.toThrow();
    expect(file.clusters.length).toBeGreaterThan(0);
    for (const c of file.clusters) expect(c.lambda).toBeGreaterThan(0);
  });
  it('re-ranks as the weights of clusterFeatures say, on the check sentences and texts with Han, harakat and punctuation', () => {
    // the loaded stages find features by hash; the reference reads the file's weights by
    // feature string, as the trainer (scripts/lid-clusters.ts) wrote them
    const file = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as ClusterFile;
    const labels = JSON.parse(readFileSync(new URL(`../../../models/${model}/labels.json`, import.meta.url), 'utf8')) as string[];
    const texts = readFileSync(new URL('../../../scripts/lid-cluster-check.tsv', import.meta.url), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[1]!);
    texts.push('我今晚想去看电影。佢哋唔係度', '佢哋、係 中文', 'كَتَبَ الوَلَدُ، الدَّرْسَ', 'Eg veit ikkje. Eg veit, ikkje!', 'hleb i mleko; kruh i mlijeko');
    let applied = 0;
    for (const c of file.clusters) {
      const stage = loadClusterStages({ version: 1, clusters: [c] }, labels);
      for (const text of texts) {
        const members = c.members.map((m) => labels.indexOf(m));
        // a row whose best label is the cluster's first member, the others close behind
        const row = new Float64Array(labels.length).fill(0.2 / labels.length);
        members.forEach((m, k) => { row[m] = 0.8 / (k + 1.5); });
        const mass = members.reduce((t, m) => t + row[m]!, 0);
        const features = clusterFeatures(text);
        const score = members.map((_, k) => features.reduce((t, f) => t + (c.weights[f]?.[k] ?? 0), 0));
        const z = members.map((m, k) => Math.log(row[m]!) + c.lambda * score[k]!);
        const expected = z.map((v) => Math.exp(v - Math.max(...z)));
        const sum = expected.reduce((t, v) => t + v, 0);
        const got = row.slice();
        expect(refineWithClusters(got, stage, text)).toBe(true);
        members.forEach((m, k) => expect(got[m]!, `${c.members.join('/')}: ${text}`).toBeCloseTo((mass * expected[k]!) / sum, 5));
        if (score.some((v) => v !== 0)) applied++;
      }
    }
    expect(applied).toBeGreaterThan(texts.length / 2);
  });
});
