/**
 * The word lexicon and bigram language model of the diacnet models
 * (services/capabilities/diacritize/word-lm.ts has the format and the decoder), counted
 * from the training lines of scripts/diacritics-data.ts (the held-out lines are never
 * read). Usage: `tsx scripts/word-lm.ts --out FILE.tsv.gz [--corpora DIR] [--max-lines N]`.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { formOf, units, vietnameseToneOnFirstVowel } from '../services/capabilities/diacritize/marks.ts';
import { END, START } from '../services/capabilities/diacritize/word-lm.ts';
import { CORPORA, DIACRITICS_SOURCES, heldOut, lineWeight, linesOf } from './diacritics-data.ts';

/**
 * Lower-case forms of the words (maximal runs of letters) of a line, NFC; Vietnamese in the
 * project's tone placement (vietnameseToneOnFirstVowel), so the lexicon proposes one style.
 */
export function formsOfLine(line: string, language: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const u of units(language === 'vie' ? vietnameseToneOnFirstVowel(line) : line)) {
    if (u.letter) cur += formOf(u, language);
    else if (cur) { out.push(cur.normalize('NFC')); cur = ''; }
  }
  if (cur) out.push(cur.normalize('NFC'));
  return out;
}

/**
 * The model file's text (before gzip) for the given lines per language. A line counts
 * with its training weight (lineWeight: a line without any mark in Yorùbá, Igbo, Hausa,
 * Vietnamese or Arabic counts 0.2, as in diactag's training), so counts are fractional
 * (two decimals in the file). Bigrams and trigrams counted less than `minBigram` are left
 * out; follower counts are taken before that. The pair `<s> <s>` (the context of a text's
 * first word) is always kept.
 */
export function wordLmText(lines: ReadonlyMap<string, readonly string[]>, minBigram = 2): string {
  const out: string[] = [];
  for (const [lang, ls] of lines) {
    const uni = new Map<string, number>();
    const bi = new Map<string, number>();
    const tri = new Map<string, number>();
    let tokens = 0;
    for (const line of ls) {
      const w = lineWeight(line, lang);
      let prev2 = START; let prev = START;
      uni.set(START, (uni.get(START) ?? 0) + w);
      bi.set(`${START}\t${START}`, (bi.get(`${START}\t${START}`) ?? 0) + w);
      for (const f of [...formsOfLine(line, lang), END]) {
        uni.set(f, (uni.get(f) ?? 0) + w);
        tokens += w;
        const k = `${prev}\t${f}`;
        bi.set(k, (bi.get(k) ?? 0) + w);
        const t = `${prev2}\t${k}`;
        tri.set(t, (tri.get(t) ?? 0) + w);
        prev2 = prev; prev = f;
      }
    }
    // distinct next forms of each form and of each pair of forms, before pruning
    const followers = new Map<string, number>();
    for (const k of bi.keys()) { const p = k.slice(0, k.indexOf('\t')); if (k !== `${START}\t${START}`) followers.set(p, (followers.get(p) ?? 0) + 1); }
    const pairFollowers = new Map<string, number>();
    for (const k of tri.keys()) { const p = k.slice(0, k.lastIndexOf('\t')); pairFollowers.set(p, (pairFollowers.get(p) ?? 0) + 1); }
    const n = (c: number) => String(Math.round(c * 100) / 100);
    out.push(`N\t${lang}\t${n(tokens)}\t${uni.size - 1}`);
    for (const [f, c] of uni) out.push(`U\t${lang}\t${f}\t${n(c)}\t${followers.get(f) ?? 0}`);
    for (const [k, c] of bi) if (c >= minBigram || k === `${START}\t${START}`) out.push(`B\t${lang}\t${k}\t${n(c)}\t${pairFollowers.get(k) ?? 0}`);
    for (const [k, c] of tri) if (c >= minBigram) out.push(`T\t${lang}\t${k}\t${n(c)}`);
  }
  return `${out.join('\n')}\n`;
}

/** The training lines (not held out) of every language, optionally leaving out more lines. */
export function trainingLines(root = CORPORA, maxLines = Infinity, leaveOut: (line: string) => boolean = () => false): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const lang of Object.keys(DIACRITICS_SOURCES)) {
    out.set(lang, linesOf(lang, root).map((l) => l.text).filter((t) => !heldOut(t) && !leaveOut(t)).slice(0, maxLines));
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: a } = parseArgs({ options: { out: { type: 'string' }, corpora: { type: 'string' }, 'max-lines': { type: 'string' } } });
  if (!a.out) throw new Error('--out is required');
  const text = wordLmText(trainingLines(a.corpora ?? CORPORA, a['max-lines'] ? Number(a['max-lines']) : Infinity));
  const gz = gzipSync(text, { level: 9 });
  writeFileSync(a.out, gz);
  console.log(`wrote ${a.out}: ${(gz.length / 1e6).toFixed(1)} MB (${(text.length / 1e6).toFixed(1)} MB of text)`);
}
