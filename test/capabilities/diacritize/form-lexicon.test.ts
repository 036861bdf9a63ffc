/**
 * diactag-2.0's word lexicon (services/capabilities/diacritize/form-lexicon.ts): a word the
 * training text nearly always writes one way takes that form over the tagger's letters, as
 * a probability (`min_confidence` still applies); a doubtful, rare or misfitting entry
 * leaves the tagger's answer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FormLexicon, type FormEntry } from '../../../services/capabilities/diacritize/form-lexicon.ts';
import { units } from '../../../services/capabilities/diacritize/marks.ts';
import { restore, slotsOf, type TaggerCandidates } from '../../../services/capabilities/diacritize/tagger.ts';
import { openTagger } from '../../../services/capabilities/diacritize/backends/diactag.ts';
import { ModelRepository } from '../../../services/models/repository.ts';

const CLASSES = ['', '\u0301', '\u0303', '\u0300'];
const CANDS: TaggerCandidates = { spa: { a: [0, 1], e: [0, 1], i: [0, 1], o: [0, 1], u: [0, 1], n: [0, 2] } };
const ENTRIES = new Map([['spa', new Map<string, FormEntry>([
  ['esta', { form: 'está', share: 0.55, count: 40 }],
  ['manana', { form: 'mañana', share: 0.98, count: 12 }],
  ['cancion', { form: 'canción', share: 1, count: 1 }],
  ['que', { form: 'qué', share: 0.4, count: 90 }],
  ['dia', { form: 'días', share: 1, count: 9 }],
])]]);

/** The tagger's probabilities: no mark on every letter, with 0.9. */
function plan(text: string) {
  const us = units(text);
  const slots = slotsOf(us, text, CANDS.spa);
  const probs = new Float32Array(slots.length * CLASSES.length);
  slots.forEach((s, k) => { probs[k * CLASSES.length] = 0.9; probs[k * CLASSES.length + s.candidates[1]!] = 0.1; });
  return { us, slots, probs };
}
const run = (lex: FormLexicon, text: string, minShare: number, minCount: number, minConfidence = 0) => {
  const { us, slots, probs } = plan(text);
  const n = lex.apply('spa', us, slots, probs, CLASSES, minShare, minCount);
  return { n, text: restore(us, slots, probs, CLASSES, { language: 'spa', minConfidence, caseEndings: true }) };
};

describe('form lexicon', () => {
  const lex = new FormLexicon(ENTRIES);

  it('takes the form of a word the text is sure of, keeping the caller\'s case', () => {
    expect(run(lex, 'Manana esta aqui', 0.5, 1)).toEqual({ n: 2, text: 'Mañana está aqui' });
  });

  it('leaves the tagger\'s letters where the share or the count is below the setting, or the form does not fit', () => {
    expect(run(lex, 'Manana esta aqui', 0.6, 1).text).toBe('Mañana esta aqui');
    expect(run(lex, 'una cancion', 0.5, 2).text).toBe('una cancion');
    expect(run(lex, 'una cancion', 0.5, 1).text).toBe('una canción');
    // "días" has one letter more than "dia"; "qué" is under half of "que"'s occurrences
    expect(run(lex, 'el dia que', 0.5, 1)).toEqual({ n: 0, text: 'el dia que' });
  });

  it('gives the form the probability of its share, so min_confidence keeps a doubtful word as typed', () => {
    expect(run(lex, 'esta manana', 0.5, 1, 0.8).text).toBe('esta mañana');
  });

  it('with unknown_plain, keeps the letters of a word the lexicon does not hold as typed unless the tagger is surer', () => {
    const unsure = (text: string, bonus: number) => {
      const { us, slots, probs } = plan(text);
      // the tagger puts an acute on the "o" of "pajaro" (not in the lexicon) with 0.6 against 0.4
      const k = slots.findIndex((s) => us[s.unit]!.base === 'o');
      probs[k * CLASSES.length] = 0.4; probs[k * CLASSES.length + 1] = 0.6;
      lex.apply('spa', us, slots, probs, CLASSES, 0.6, 1, bonus);
      return restore(us, slots, probs, CLASSES, { language: 'spa', minConfidence: 0, caseEndings: true });
    };
    expect(unsure('pajaro', 0)).toBe('pajaró');
    expect(unsure('pajaro', 1)).toBe('pajaro');
    // a word the lexicon holds is not touched by it: "esta" under min_share stays the tagger's
    expect(unsure('esta pajaro', 1)).toBe('esta pajaro');
  });

  it('reads back what it writes, without the entries no setting could take', () => {
    const dir = mkdtempSync(join(tmpdir(), 'form-lexicon-'));
    writeFileSync(join(dir, 'lexicon.tsv.br'), brotliCompressSync(Buffer.from(FormLexicon.serialise(ENTRIES), 'utf8')));
    const back = FormLexicon.load(join(dir, 'lexicon.tsv.br'));
    expect([...back.language('spa').keys()]).toEqual(['esta', 'manana', 'cancion', 'dia']);
    expect(back.language('spa').get('manana')).toEqual({ form: 'mañana', share: 0.98, count: 12 });
    expect(back.language('pol').size).toBe(0);
    // languages are cut apart at load and parsed on first use: a damaged line fails then
    const two = `${FormLexicon.serialise(ENTRIES)}ita\tcitta\tcittà\t1.000\t5\nita\tperche\n`;
    writeFileSync(join(dir, 'bad.tsv.br'), brotliCompressSync(Buffer.from(two)));
    const bad = FormLexicon.load(join(dir, 'bad.tsv.br'));
    expect(bad.language('spa').size).toBe(4);
    expect(() => bad.language('ita')).toThrow(/bad\.tsv\.br: line 2 of ita: not a lexicon entry/);
  });

  it('is loaded with the committed diactag-2.0, with a setting for every language that has news text', async () => {
    const m = await openTagger(new ModelRepository(join(import.meta.dirname, '..', '..', '..', 'models')), 'diactag-2.0', { executionProvider: 'cpu', intraOpThreads: 1 });
    expect(Object.keys(m.lexicon!.spec.min_share).sort()).toEqual(['fra', 'hau', 'ibo', 'ita', 'pol', 'por', 'spa', 'tur', 'vie', 'yor']);
    expect(m.lexicon!.table.language('por').get('nao')).toMatchObject({ form: 'não' });
    expect(m.lexicon!.table.language('ara').size).toBe(0);
    await m.session.release();
  });
});
