/**
 * The spec's text limit of /v1/diacritize, checked the same way for every model: a
 * 20,000-character text with one 19,000-letter word is restored (marks aside, the text is
 * unchanged) and billed 20 units; one character more is refused with 400.
 */
import { expect } from 'vitest';
import { stripMarks } from '../../../services/capabilities/diacritize/marks.ts';

/** What a test's `restore(text, language)` answers (test/helpers/service.ts `post`). */
type Restore = (text: string, language: string) => Promise<{ status: number; body: Record<string, any> }>;

/** Runs the limit check through `restore` (Polish text). */
export async function expectTextLimit(restore: Restore): Promise<void> {
  const text = `${'a'.repeat(19_000)} ${'Zazolc gesla jazn. '.repeat(60)}`.slice(0, 20_000);
  expect(text.length).toBe(20_000);
  const r = await restore(text, 'pol');
  expect(r.status).toBe(200);
  expect(stripMarks(r.body.text)).toBe(text);
  expect(r.body.usage).toEqual({ characters: 20_000, billable_units: 20 });
  expect((await restore(`${text}a`, 'pol')).status).toBe(400);
}
