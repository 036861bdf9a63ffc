/**
 * `npm run bench:diacritics`: the diacritization models on the held-out text of each
 * language (scripts/diacritics-data.ts: one line in ten, by a seeded hash; never trained
 * on), marks stripped from the correctly written lines, beside two baselines measured in
 * the same run: "doing nothing" (the stripped text) and "most frequent marked form per
 * word" (a lexicon built from the same training text).
 *
 * Figures: alpha-word accuracy (words with a letter restored exactly; Náplava et al.
 * 2018, "Diacritics Restoration Using Neural Networks", LREC), per language and model;
 * for Arabic also the diacritic error rate (DER: Arabic letters whose marks differ from
 * the reference), with case endings and without (the last letter of each word left
 * out); speed in characters per second on one core at batch 64 (one onnxruntime thread);
 * the model's size on disk (every file of its folder); and diactag-2.0's calibration: at min_confidence 0.5 / 0.8 /
 * 0.95 the share of letters with a choice left as typed and the accuracy of the rest.
 * Every diacritization model of the capability module that is installed is measured
 * through its own backend (the engine a worker's inference thread runs); models not
 * installed are skipped with a line saying so.
 *
 * Environment: BENCH_DIACRITICS_LINES (held-out lines per language, default 1000),
 * MODEL_REPOSITORY (default models/).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIACRITICS_SOURCES, heldOut, linesOf } from '../scripts/diacritics-data.ts';
import { formOf, inCase, stripMarks, units, vietnameseToneOnFirstVowel, type Unit } from '../services/capabilities/diacritize/marks.ts';
import { openTagger, scoreSlots, type Loaded, type Row } from '../services/capabilities/diacritize/backends/diactag.ts';
import { bestClass, formFrom, slotsOf, type Slot } from '../services/capabilities/diacritize/tagger.ts';
import { prepare, slotFeatures } from '../services/capabilities/diacritize/tagger-features.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { BACKENDS, capabilityModule } from '../services/capabilities/index.ts';
import type { DiacritizeOutput, DiacritizeRequest } from '../services/events/contract.ts';
import type { Engine, EngineContext } from '../services/workers/engines/types.ts';

const LINES = Number(process.env.BENCH_DIACRITICS_LINES ?? 1000);
const REPO = new ModelRepository(process.env.MODEL_REPOSITORY ?? fileURLToPath(new URL('../models/', import.meta.url)));
const LANGS = Object.keys(DIACRITICS_SOURCES);

/** Words of a text: runs of letter units, NFC. */
function words(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const u of units(text)) {
    if (u.letter) cur += u.text;
    else if (cur) { out.push(cur); cur = ''; }
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Alpha-word accuracy counts: words of `got` equal to those of `want`, position by
 * position. Vietnamese is compared in the project's tone placement on both sides
 * (vietnameseToneOnFirstVowel: hòa and hoà are the same restoration; docs/api-choices.md).
 */
function wordScore(want: string, got: string, lang = ''): [number, number] {
  const style = (s: string) => (lang === 'vie' ? vietnameseToneOnFirstVowel(s) : s);
  const a = words(style(want)); const b = words(style(got));
  let ok = 0;
  for (let i = 0; i < a.length; i++) if (a[i]!.normalize('NFC') === b[i]?.normalize('NFC')) ok++;
  return [ok, a.length];
}

/** DER counts over Arabic letters: [errors, letters] with and without each word's last letter. */
function der(want: string, got: string): { all: [number, number]; noCase: [number, number] } {
  const a = units(want); const b = units(got);
  const r = { all: [0, 0] as [number, number], noCase: [0, 0] as [number, number] };
  if (a.length !== b.length) return r;
  for (let i = 0; i < a.length; i++) {
    if (!a[i]!.letter || !/\p{Script=Arabic}/u.test(a[i]!.base)) continue;
    const wrong = a[i]!.text !== b[i]!.text ? 1 : 0;
    r.all[0] += wrong; r.all[1]++;
    if (a[i + 1]?.letter) { r.noCase[0] += wrong; r.noCase[1]++; }
  }
  return r;
}

const pct = (x: [number, number]) => (x[1] === 0 ? '—' : (100 * x[0] / x[1]).toFixed(1));

/** The "most frequent marked form per word" baseline, from the training lines. */
function lexiconOf(lang: string): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const l of linesOf(lang)) {
    if (heldOut(l.text)) continue;
    for (const w of words(l.text)) {
      const form = units(w).map((u) => formOf(u, lang)).join('').normalize('NFC');
      const key = stripMarks(form);
      let m = counts.get(key);
      if (!m) counts.set(key, (m = new Map()));
      m.set(form, (m.get(form) ?? 0) + 1);
    }
  }
  const out = new Map<string, string>();
  for (const [k, m] of counts) out.set(k, [...m].sort((x, y) => y[1] - x[1])[0]![0]);
  return out;
}
function byLexicon(text: string, lex: Map<string, string>, lang: string): string {
  const us = units(text);
  let out = '';
  let i = 0;
  while (i < us.length) {
    if (!us[i]!.letter) { out += us[i]!.text; i++; continue; }
    let j = i;
    while (j < us.length && us[j]!.letter) j++;
    const word = us.slice(i, j);
    const key = word.map((u) => u.base).join('').normalize('NFC');
    const form = lex.get(key);
    const fu = form ? units(form) : undefined;
    out += fu && fu.length === word.length ? word.map((u, k) => inCase(fu[k]!.text, u.upper, lang)).join('') : word.map((u) => u.text).join('');
    i = j;
  }
  return out.normalize('NFC');
}

interface Prepared { lang: string; want: string; input: string; us: Unit[]; slots: Slot[]; rows: Row[]; }
function prepareText(m: Loaded, lang: string, want: string): Prepared {
  const input = stripMarks(want);
  const us = units(input);
  const slots = slotsOf(us, input, m.candidates[lang]);
  const p = prepare(us);
  return { lang, want, input, us, slots, rows: slots.map((slot) => ({ item: 0, slot, ids: slotFeatures(p, slot.unit, lang, m.features) })) };
}

const held = new Map<string, string[]>();
for (const lang of LANGS) held.set(lang, linesOf(lang).filter((l) => heldOut(l.text)).slice(0, LINES).map((l) => l.text));

console.log(`diacritic restoration on held-out text (scripts/diacritics-data.ts), up to ${LINES} lines per language, Node ${process.version}`);
const baseline: Record<string, [string, string]> = {};
for (const lang of LANGS) {
  const lex = lexiconOf(lang);
  let nothing: [number, number] = [0, 0]; let lexi: [number, number] = [0, 0];
  for (const t of held.get(lang)!) {
    const a = wordScore(t, stripMarks(t), lang); nothing = [nothing[0] + a[0], nothing[1] + a[1]];
    const b = wordScore(t, byLexicon(stripMarks(t), lex, lang), lang); lexi = [lexi[0] + b[0], lexi[1] + b[1]];
  }
  baseline[lang] = [pct(nothing), pct(lexi)];
}

/** A request event of the diacritize capability for a held-out text. */
const request = (model: string, text: string, language: string): DiacritizeRequest => ({
  text, model, language, caseEndings: true, hints: null, aligned: true, minConfidence: 0,
});

const accuracy = new Map<string, Record<string, string | number>>(LANGS.map((l) => [l, {
  language: l, lines: held.get(l)!.length, nothing: baseline[l]![0], 'most frequent form': baseline[l]![1],
}]));
const calibration: Array<Record<string, string>> = [];
const speed: Array<Record<string, string | number>> = [];
for (const { name } of capabilityModule('diacritize').models) {
  const cfg = REPO.installed(name) ? REPO.config(name) : null;
  if (!cfg) { console.log(`${name}: not installed, skipped`); continue; }
  // the model's own backend, as a worker's inference thread runs it (one onnxruntime thread)
  const { createEngine } = (await import(BACKENDS[cfg.backend]!.module.href)) as { createEngine(ctx: EngineContext): Engine<DiacritizeRequest, DiacritizeOutput> };
  const engine = createEngine({ repository: REPO.root, executionProvider: 'cpu', intraOpThreads: 1 });
  await engine.load(name);
  for (const lang of LANGS) {
    const texts = held.get(lang)!;
    let acc: [number, number] = [0, 0];
    const d = { all: [0, 0] as [number, number], noCase: [0, 0] as [number, number] };
    for (let i = 0; i < texts.length; i += 64) {
      const batch = texts.slice(i, i + 64);
      const rs = await engine.run(name, batch.map((t) => request(name, stripMarks(t), lang)));
      rs.forEach((r, k) => {
        const got = r.output?.text ?? stripMarks(batch[k]!);
        const s = wordScore(batch[k]!, got, lang); acc = [acc[0] + s[0], acc[1] + s[1]];
        if (lang === 'ara') { const e = der(batch[k]!, got); d.all[0] += e.all[0]; d.all[1] += e.all[1]; d.noCase[0] += e.noCase[0]; d.noCase[1] += e.noCase[1]; }
      });
    }
    const row = accuracy.get(lang)!;
    row[name] = pct(acc);
    if (lang === 'ara') row[`${name} DER % (case endings / without)`] = `${pct(d.all)} / ${pct(d.noCase)}`;
  }

  // speed: batches of 64 held-out sentences of 80–120 characters without marks, through the backend
  const pool = LANGS.flatMap((l) => held.get(l)!.filter((t) => t.length >= 80 && t.length <= 120).slice(0, 64).map((t) => request(name, stripMarks(t), l)));
  let chars = 0; const start = process.hrtime.bigint();
  for (let rep = 0; rep < 3; rep++) {
    for (let i = 0; i < pool.length; i += 64) {
      const batch = pool.slice(i, i + 64);
      await engine.run(name, batch);
      for (const x of batch) chars += Array.from(x.text).length;
    }
  }
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  speed.push({ model: name, 'characters/s (1 core, batch 64)': Math.round(chars / s), 'model size MB (all files of its folder)': (folderBytes(cfg.dir) / 1e6).toFixed(1) });
  await engine.unload(name);

  if (cfg.backend === 'diactag') calibration.push(...await taggerCalibration(name));
}
const table = [...accuracy.values()];

/** Bytes of every file under a folder (a model's network, word language model, vocabularies). */
function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? folderBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
}

/** diactag's calibration: per min_confidence, the share of letters with a choice left as typed and the accuracy of the rest. */
async function taggerCalibration(name: string): Promise<Array<Record<string, string>>> {
  const m = await openTagger(REPO, name, { executionProvider: 'cpu', intraOpThreads: 1 });
  const cal = new Map<number, { left: number; decided: number; right: number }>([0.5, 0.8, 0.95].map((t) => [t, { left: 0, decided: 0, right: 0 }]));
  const C = m.classes.length;
  for (const lang of LANGS) {
    const texts = held.get(lang)!.map((t) => prepareText(m, lang, t));
    const probs = await scoreSlots(m, texts.flatMap((t) => t.rows));
    let row = 0;
    for (const t of texts) {
      const want = units(t.want);
      t.slots.forEach((slot) => {
        const p = probs.subarray(row * C, (row + 1) * C);
        row++;
        const best = bestClass(slot, p, 0, C);
        const pBest = p[best]!;
        const u = t.us[slot.unit]!;
        const right = inCase(formFrom(u.base, m.classes[best]!), u.upper, lang) === want[slot.unit]?.text;
        for (const [th, c] of cal) { if (pBest < th) c.left++; else { c.decided++; if (right) c.right++; } }
      });
    }
  }
  await m.session.release();
  return [...cal].map(([th, c]) => ({ model: name, min_confidence: String(th), 'left as typed %': (100 * c.left / (c.left + c.decided)).toFixed(1), 'accuracy of the rest %': (100 * c.right / Math.max(1, c.decided)).toFixed(2) }));
}
console.log('alpha-word accuracy %');
console.table(table);
console.log('speed and size');
console.table(speed);
console.log('calibration of diactag (letters with a choice)');
console.table(calibration);
