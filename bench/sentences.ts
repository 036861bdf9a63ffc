/**
 * The request texts of the HTTP benchmarks: the sentences of about 100 characters
 * written for the tests (test/fixtures/lid-sentences.tsv, second column), not
 * evaluation data.
 */
import { readFileSync } from 'node:fs';

/** One sentence per fixture line. */
export const SENTENCES: string[] = readFileSync(new URL('../test/fixtures/lid-sentences.tsv', import.meta.url), 'utf8')
  .trim().split('\n').map((l) => l.split('\t')[1]!);
