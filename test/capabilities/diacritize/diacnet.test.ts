/**
 * The diacnet backend (issue 13) on a tiny model built by the project's own pipeline
 * (npm run train:diacnet: data, 40 NumPy training steps on the CPU, the same on any machine, ONNX export): it
 * answers through the embedded pipeline, keeps the caller's letters, and a long text cut
 * into windows gets the same probabilities as the whole text read at once, and a text whose
 * language's part of the word model is damaged fails alone; the pipeline builds the
 * word-class and spelling models too and names them in config.json. The tiny
 * model's accuracy is not asserted (bench:diacritics measures trained models).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DIACRITICS_SOURCES, NEWS_DEV } from '../../../scripts/diacritics-data.ts';
import { CLASS_LANGUAGES, SPELLING_LANGUAGES } from '../../../scripts/word-lm.ts';
import { openSpellingLm } from '../../../services/capabilities/diacritize/spelling-lm.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LENGTH_CLASS, openDiacnet, receptiveRadius, runsOf, scoreTexts } from '../../../services/capabilities/diacritize/backends/diacnet.ts';
import { packedParts } from '../../../services/capabilities/diacritize/word-lm-format.ts';
import { planBatch } from '../../../services/capabilities/diacritize/backends/common.ts';
import { createEngine as createLidEngine } from '../../../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { stripMarks } from '../../../services/capabilities/diacritize/marks.ts';
import type { Embedded } from '../../../services/embedded.ts';
import { ModelRepository } from '../../../services/models/repository.ts';
import { post, startService, until } from '../../helpers/service.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** A marked sentence per language (the tiny model's training text). */
const CORPUS: Record<string, string> = {
  yor: 'Mo fẹ́ràn ọmọ mi púpọ̀', ibo: 'Nne m nọ n’ụlọ ahịa', hau: 'Ƙasar Najeriya tana da girma sosai', vie: 'Chúng tôi đi ăn cơm ở nhà hàng',
  pol: 'Dziękuję bardzo za pomoc, zażółć gęślą jaźń', tur: 'Bugün hava çok güzel', por: 'Não sei onde está a estação', spa: 'Mañana iré a la montaña',
  fra: 'Nous sommes allés à la plage en été', ita: 'La città è molto bella', ara: 'ذَهَبَ الوَلَدُ إِلَى المَدْرَسَةِ',
};
const MODEL = 'diacnet-mini-2.0';
let repo: string;
let svc: Embedded;

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'diacnet-repo-'));
  // a small corpora folder of the shared layout, with sentences written for this test
  const corpora = mkdtempSync(join(tmpdir(), 'diacnet-corpora-'));
  for (const [lang, sources] of Object.entries(DIACRITICS_SOURCES)) {
    sources.forEach((src, k) => {
      const file = src.endsWith('.txt') ? join(corpora, src) : join(corpora, src, 'test.txt');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, k === 0 ? Array.from({ length: 40 }, (_, i) => `${CORPUS[lang]} ${i}`).join('\n') : '');
    });
  }
  // a news development file for Polish (the settings are tuned on it; the others keep the defaults)
  writeFileSync(join(corpora, NEWS_DEV.pol!.ntrex!), Array.from({ length: 20 }, (_, i) => `${CORPUS.pol} ${i + 100}`).join('\n'));
  // the Spanish Hunspell dictionary only (the others take 30 s more to expand)
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'train-diacnet.ts'), '--name', MODEL, '--steps', '40', '--device', 'cpu', '--batch', '32', '--corpora', corpora, '--out', repo, '--hunspell', 'spa'], { encoding: 'utf8', timeout: 500_000 });
  if (r.status !== 0) throw new Error(`train:diacnet failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  // the Italian part of the word model is damaged (a byte in the middle of its gzip member):
  // Italian requests fail alone, everything else is answered
  const lmFile = join(repo, MODEL, 'word-lm.bin');
  const bytes = readFileSync(lmFile);
  const [from, to] = packedParts(bytes).get('ita')!;
  bytes[Math.floor((from + to) / 2)]! ^= 0xff;
  writeFileSync(lmFile, bytes);
  // language=auto asks the language-ID model of the same repository
  cpSync(join(ROOT, 'models', 'lid-lite-608'), join(repo, 'lid-lite-608'), { recursive: true });
  svc = await startService({ MODEL_REPOSITORY: repo, RATE_LIMIT_MAX: 100_000 }, { capabilities: ['diacritize'] });
});
afterAll(async () => { await svc?.close(); });

describe('diacnet backend', () => {
  it('answers through the pipeline with the caller\'s letters, NFC, billed in characters', async () => {
    await until(async () => {
      const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' });
      return (res.json() as { models: Array<{ name: string; status: string }> }).models.find((m) => m.name === MODEL)?.status === 'available';
    }, 10_000, `${MODEL} available`);
    const text = 'Dziekuje bardzo za pomoc, to bylo bardzo mile z twojej strony, 2024 https://example.pl';
    for (const language of ['pol', 'auto']) {
      const r = await post(svc, '/v1/diacritize', { text, language, model: MODEL });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ model: MODEL, language: 'pol', usage: { characters: text.length, billable_units: 1 } });
      expect(stripMarks(r.body.text)).toBe(text);
      expect(r.body.text).toBe(r.body.text.normalize('NFC'));
      expect(r.body.text).toMatch(/ 2024 https:\/\/example\.pl$/);
    }
    const batch = await post(svc, '/v1/diacritize/batch', { texts: ['Bugun hava cok guzel.', 'Guten Morgen, wie geht es dir heute? Ich hoffe, du hast gut geschlafen.'], language: ['tur', 'auto'], model: MODEL });
    expect(batch.body.texts[1]).toBeNull();
    expect(stripMarks(batch.body.texts[0])).toBe('Bugun hava cok guzel.');
  });

  it('builds the word-class and spelling models beside the word model, for the languages of CLASS_LANGUAGES and SPELLING_LANGUAGES, and names them in config.json', () => {
    const cfg = JSON.parse(readFileSync(join(repo, MODEL, 'config.json'), 'utf8')) as { word_lm: { class_file?: string; class_weight?: Record<string, number>; spelling_file?: string; spelling_weight?: Record<string, number>; unknown_char_weight?: Record<string, number> } };
    expect(cfg.word_lm.class_file).toBe('class-lm.bin');
    expect(cfg.word_lm.class_weight?.pol).toBeTypeOf('number');
    expect([...packedParts(readFileSync(join(repo, MODEL, 'class-lm.bin'))).keys()].sort()).toEqual([...CLASS_LANGUAGES].sort());
    expect(cfg.word_lm.spelling_file).toBe('spelling-lm.bin');
    expect(cfg.word_lm.spelling_weight?.pol).toBeTypeOf('number');
    expect(cfg.word_lm.unknown_char_weight?.pol).toBeTypeOf('number');
    // Arabic, without news text, is tuned on half of its held-out split (diacritics-data.ts HELD_OUT_DEV_LANGUAGES)
    expect(cfg.word_lm.unknown_char_weight?.ara).toBeTypeOf('number');
    expect(cfg.word_lm.class_weight?.ara).toBeTypeOf('number');
    expect([...openSpellingLm(readFileSync(join(repo, MODEL, 'spelling-lm.bin'))).keys()].sort()).toEqual([...SPELLING_LANGUAGES].sort());
  });

  it('uses a hint given as the marked word and warns about a hint given as a meaning', async () => {
    const r = await post(svc, '/v1/diacritize', { text: 'Dziekuje bardzo, zamek stoi', language: 'pol', model: MODEL, hints: { dziekuje: 'dziękuję', zamek: 'castle' } });
    expect(r.status).toBe(200);
    expect(r.body.text).toMatch(/^Dziękuję /);
    expect(r.body.warnings).toEqual([expect.stringMatching(/hint for "zamek" not used/)]);
  });

  it('answers a text whose language\'s part of the word model is damaged with a 500 of its own, and the other texts of its batch', async () => {
    const one = await post(svc, '/v1/diacritize', { text: 'La citta e molto bella', language: 'ita', model: MODEL });
    expect(one.status).toBe(500);
    expect(one.body).toMatchObject({ status: 500, code: 'INFERENCE_FAILED' });
    expect(one.body.error).toMatch(/word model's part for ita cannot be read/);
    const batch = await post(svc, '/v1/diacritize/batch', { texts: ['La citta e molto bella', 'Bugun hava cok guzel.', 'La citta e bella'], language: ['ita', 'tur', 'ita'], model: MODEL });
    expect(batch.status).toBe(200);
    expect(batch.body.texts[0]).toBeNull();
    expect(batch.body.texts[2]).toBeNull();
    expect(stripMarks(batch.body.texts[1])).toBe('Bugun hava cok guzel.');
    expect(batch.body.errors).toEqual([expect.objectContaining({ index: 0, code: 'INFERENCE_FAILED' }), expect.objectContaining({ index: 2, code: 'INFERENCE_FAILED' })]);
    // only the restored text is billed
    expect(batch.body.usage.characters).toBe('Bugun hava cok guzel.'.length);
  });

  it('runs windows with others of their length class, each window once, at most perRun a call', () => {
    const lengths = [300, 40, 100, 384, 120, 33, 97, 64, 384, 128, 65, 1];
    const windows = lengths.map((n, text) => ({ text, readFrom: 10, from: 10, to: 10 + n, readTo: 10 + n }));
    const runs = runsOf(windows, 2);
    expect(runs.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
    const cls = (i: number) => Math.ceil(lengths[i]! / LENGTH_CLASS);
    for (const run of runs) {
      expect(run.length).toBeLessThanOrEqual(2);
      expect(new Set(run.map(cls)).size).toBe(1);
    }
    // shortest classes first (of 16 characters: 1 | 33 40 | 64 | 65 | 97 100 | 120 128 | 300 | 384), windows in their order within a class
    expect(LENGTH_CLASS).toBe(16);
    expect(runs.map((r) => r.map((i) => lengths[i]))).toEqual([[1], [40, 33], [64], [65], [100, 97], [120, 128], [300], [384, 384]]);
  });

  it('refuses to load a model whose features_per_letter is below the features a letter can have (they are written in place, row after row)', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'diacnet-bad-'));
    cpSync(join(repo, MODEL), join(bad, MODEL), { recursive: true });
    const file = join(bad, MODEL, 'config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), features_per_letter: 21 }));
    await expect(openDiacnet(new ModelRepository(bad), MODEL, { executionProvider: 'cpu', intraOpThreads: 1 })).rejects.toThrow(/features_per_letter 21 is below the 22 features a letter can have/);
  });

  it('reads windows with the network\'s receptive radius of context: (kernel − 1) / 2 × the dilations', () => {
    expect(receptiveRadius({ dilations: [1, 2, 4, 8, 16, 1, 2, 4], kernel: 5 })).toBe(76);
    expect(receptiveRadius({ dilations: [1, 2, 4, 8, 1, 2], kernel: 5 })).toBe(36);
    expect(receptiveRadius({ dilations: [1, 2], kernel: 3 })).toBe(3);
    expect(receptiveRadius(undefined)).toBe(64);
  });

  it('gives a long text cut into windows the probabilities of the whole text read at once', async () => {
    const m = await openDiacnet(new ModelRepository(repo), MODEL, { executionProvider: 'cpu', intraOpThreads: 1 });
    expect(m.margin).toBe(receptiveRadius(JSON.parse(readFileSync(join(repo, MODEL, 'config.json'), 'utf8')).training));
    const lid = createLidEngine({ repository: repo, executionProvider: 'cpu', intraOpThreads: 1 });
    // no two sentences alike, so that a window that misses context would answer otherwise
    const long = Array.from({ length: 30 }, (_, i) => `Zazolc ${i} gesla ${'jazn'.slice(i % 4)}, prosze ${'bardzo'.repeat(1 + (i % 3))} ${i * i}.`).join(' ');
    const { texts } = await planBatch([{ text: long, model: MODEL, language: 'pol', caseEndings: true, hints: null, aligned: true, minConfidence: 0 }], m.candidates, lid, m.lidModel);
    expect(texts[0]!.us.length).toBeGreaterThan(1000);
    const [windowed] = await scoreTexts(m, texts);
    const [whole] = await scoreTexts(m, texts, 100_000, 0);
    expect(windowed!.length).toBe(whole!.length);
    let maxDiff = 0;
    for (let i = 0; i < whole!.length; i++) maxDiff = Math.max(maxDiff, Math.abs(windowed![i]! - whole![i]!));
    expect(maxDiff).toBeLessThan(1e-5);
    // with less context than the radius, letters near the windows' edges answer otherwise
    const [short] = await scoreTexts(m, texts, 256, Math.floor(m.margin / 4));
    let shortDiff = 0;
    for (let i = 0; i < whole!.length; i++) shortDiff = Math.max(shortDiff, Math.abs(short![i]! - whole![i]!));
    expect(shortDiff).toBeGreaterThan(1e-4);
    await m.session.release();
  });
});
