/**
 * Alpha-word accuracy (scripts/diacritics-score.ts wordScore) of a diacnet model per
 * source file of one language's held-out split and news development set
 * (scripts/diacritics-data.ts linesOf: roles `heldout` and `dev`), the network alone and
 * through the word-level rescoring, up to `--lines` lines per file. bench:diacritics
 * pools a language's held-out lines; this tells the registers apart (Vietnamese: Common
 * Voice sentences, mostly fiction, against Wikipedia and LibreOffice help; docs/diacritics.md).
 * Usage: `tsx scripts/diacritics-by-source.ts --lang vie [--repo models] [--name diacnet-2.0] [--lines 1000]`;
 * prints one row per file.
 */
import { parseArgs } from 'node:util';
import { restore } from '../services/capabilities/diacritize/tagger.ts';
import { openDiacnet, scoreTexts } from '../services/capabilities/diacritize/backends/diacnet.ts';
import { decodeText } from '../services/capabilities/diacritize/word-lm.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { CORPORA, linesOf } from './diacritics-data.ts';
import { plannedLines, wordScore } from './diacritics-score.ts';

const { values: a } = parseArgs({ options: { repo: { type: 'string', default: 'models' }, name: { type: 'string', default: 'diacnet-2.0' }, lang: { type: 'string' }, lines: { type: 'string', default: '1000' } } });
if (!a.lang) throw new Error('--lang is required');
const lang = a.lang;
const m = await openDiacnet(new ModelRepository(a.repo!), a.name!, { executionProvider: 'cpu', intraOpThreads: 1 });
/** role and source → its lines */
const groups = new Map<string, string[]>();
for (const l of linesOf(lang, CORPORA)) {
  if (l.role !== 'heldout' && l.role !== 'dev') continue;
  const g = `${l.role} ${l.source}`;
  let list = groups.get(g);
  if (!list) groups.set(g, (list = []));
  list.push(l.text);
}
/** restore's options: the language, no confidence floor, case endings */
const o = { language: lang, minConfidence: 0, caseEndings: true };
const rows: Array<Record<string, string | number>> = [];
for (const [group, all] of groups) {
  const lines = all.slice(0, Number(a.lines));
  const texts = plannedLines(lines, a.name!, lang, m.candidates);
  const probs = await scoreTexts(m, texts);
  const net: [number, number] = [0, 0]; const dec: [number, number] = [0, 0];
  texts.forEach((t, k) => {
    const alone = wordScore(lines[k]!, restore(t.us, t.slots, probs[k]!, m.classes, o), lang);
    const chosen = m.wordLm ? decodeText(m.wordLm, lang, t.us, t.slots, probs[k]!, m.classes, 0.01) : undefined;
    const both = wordScore(lines[k]!, restore(t.us, t.slots, probs[k]!, m.classes, { ...o, chosen }), lang);
    net[0] += alone[0]; net[1] += alone[1]; dec[0] += both[0]; dec[1] += both[1];
  });
  rows.push({ set: group, lines: lines.length, words: dec[1], network: (100 * net[0] / Math.max(1, net[1])).toFixed(2), 'with the word model': (100 * dec[0] / Math.max(1, dec[1])).toFixed(2) });
}
console.table(rows);
