/**
 * The training-option experiments of the language-ID models (docs/language-id.md,
 * "Spelling dictionaries", "More one- and two-word examples"): one model name and model repositories, the committed
 * `models/` first as the baseline, each scored in the same run on the news development
 * set (scripts/lid-data.ts newsDevTexts, newsDevShortTexts) and the held-out sentences
 * and words, split into the labels with a dictionary (scripts/lid-dictionaries.ts
 * DICTIONARIES) and the others, with the count of news words wrongly answered as a
 * dictionary's label. Coverage mode, the service's answers (second stage included).
 *
 * Usage: `npx tsx bench/lid-dictionaries.ts lid-lite-608 DIR...` (DIR: a repository written by
 * `npm run train:lid -- --only lid-lite-608 --dictionary-share X --out DIR`). Never reads lid-eval.
 */
import { heldOutTexts, loadTrainingText, newsDevShortTexts, newsDevTexts } from '../scripts/lid-data.ts';
import { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { DICTIONARIES } from '../scripts/lid-dictionaries.ts';
import { modelAnswers } from '../scripts/lid-answers.ts';

const [model, ...others] = process.argv.slice(2);
if (!model) throw new Error('usage: npx tsx bench/lid-dictionaries.ts MODEL [DIR...]');
const repos = ['models', ...others];
const { pools } = loadTrainingText();
const sets: Record<string, Array<{ label: string; text: string }>> = {};
for (const t of newsDevShortTexts(pools)) (sets[t.set] ??= []).push(t);
sets['news sentences'] = newsDevTexts(pools);
for (const t of heldOutTexts(pools)) if (t.set === 'sentences' || t.set === 'words') (sets[`held-out ${t.set}`] ??= []).push(t);
const dict = new Set(Object.keys(DICTIONARIES));
const pct = (a: number, n: number) => (n === 0 ? '–' : `${(100 * a / n).toFixed(1)}`);

console.log(`| ${model} | ${Object.keys(sets).map((s) => `${s}: all / dict. / others`).join(' | ')} | news words answered as a dictionary's label wrongly |`);
console.log(`|---|${Object.keys(sets).map(() => '---:').join('|')}|---:|`);
for (const repo of repos) {
  const engine = createEngine({ repository: repo, executionProvider: 'cpu', intraOpThreads: 1 });
  const cells: string[] = [];
  let stolen = 0;
  for (const [name, texts] of Object.entries(sets)) {
    let okD = 0, nD = 0, okO = 0;
    const out = await modelAnswers(engine, model, texts.map((t) => t.text), 'coverage');
    out.forEach(({ label: answer }, k) => {
      const gold = texts[k]!.label, right = answer === gold ? 1 : 0;
      if (dict.has(gold)) { nD++; okD += right; } else okO += right;
      if (name === 'news words' && !right && dict.has(answer)) stolen++;
    });
    cells.push(`${pct(okD + okO, texts.length)} / ${pct(okD, nD)} / ${pct(okO, texts.length - nD)} %`);
  }
  console.log(`| ${repo} | ${cells.join(' | ')} | ${stolen} |`);
}
