/**
 * POST /v1/diacritize and /v1/diacritize/batch (spec: "Diacritic restoration
 * request"). Billing: characters, billable_units = ceil(characters / 1000) per request.
 * Fields that apply to one model family only (hints, aligned: diacnet; min_confidence:
 * diactag) are accepted and ignored by the other models (docs/api-choices.md).
 */
import capability from './index.ts';
import type { DiacritizeOutput } from '../../events/contract.ts';
import { codeOf, invalid } from '../../lib/errors.ts';
import { DIACRITIZE_LANGUAGES } from './languages.ts';
import { BODY_LIMITS, ERRORS, ERROR_BODY, FIELD_LIMITS, SECURITY, answerSchema, codePointLength, outputOf, usageSchema, type CapabilityRoutes } from '../../route-kit/index.ts';

const LANGUAGE = { type: 'string', enum: Object.keys(DIACRITIZE_LANGUAGES) } as const;
const HINTS = {
  type: 'object', maxProperties: FIELD_LIMITS.hintEntries, propertyNames: { maxLength: FIELD_LIMITS.hintWord },
  additionalProperties: { type: 'string', maxLength: FIELD_LIMITS.hintMeaning }, description: 'word → meaning',
} as const;
const OPTIONS = {
  model: { type: 'string', enum: capability.models.map((m) => m.name), default: capability.defaultModel },
  case_endings: { type: 'boolean', default: true },
  aligned: { type: 'boolean', default: true },
  min_confidence: { type: 'number', minimum: 0, maximum: 1, default: 0 },
} as const;
const TEXT = { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.diacritizeText } as const;

/** Body schema of POST /v1/diacritize. */
export const DIACRITIZE_BODY = {
  type: 'object', required: ['text'],
  properties: { text: TEXT, language: { ...LANGUAGE, default: 'auto' }, hints: HINTS, ...OPTIONS },
} as const;
const BATCH_BODY = {
  type: 'object', required: ['texts'],
  properties: {
    texts: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.diacritizeBatch, items: TEXT },
    language: { anyOf: [LANGUAGE, { type: 'array', maxItems: FIELD_LIMITS.diacritizeBatch, items: LANGUAGE }], default: 'auto' },
    hints: { type: 'array', maxItems: FIELD_LIMITS.diacritizeBatch, items: { anyOf: [HINTS, { type: 'null' }] } },
    ...OPTIONS,
  },
} as const;

const USAGE = usageSchema('characters', 'billable_units');
const WARNINGS = { type: 'array', items: { type: 'string' } } as const;
const MODEL = { type: 'string', enum: capability.models.map((m) => m.name) } as const;
const RESTORED_LANGUAGE = { type: 'string', description: 'the language restored: ISO 639-3, `ara-nocase` for Arabic without case endings' } as const;
/** Response schema (200) of POST /v1/diacritize. */
const ANSWER = answerSchema({ text: { type: 'string' }, model: MODEL, language: RESTORED_LANGUAGE, usage: USAGE, warnings: WARNINGS }, ['warnings']);
/** Response schema (200) of POST /v1/diacritize/batch: a text that failed is null in `texts` and has an entry in `errors`. */
const BATCH_ANSWER = answerSchema({
  texts: { type: 'array', items: { type: ['string', 'null'] } },
  languages: { type: 'array', items: { anyOf: [RESTORED_LANGUAGE, { type: 'null' }] } },
  model: MODEL, usage: USAGE,
  errors: { type: 'array', items: answerSchema({ index: { type: 'integer' }, ...ERROR_BODY.properties }) },
  warnings: { type: 'array', items: WARNINGS, description: 'one list per text, when any text has one' },
}, ['errors', 'warnings']);

interface Options { model: string; case_endings: boolean; aligned: boolean; min_confidence: number; }

/** Rule: a per-text list has one entry per text. */
export function checkPerText(list: unknown[] | undefined, texts: number, field: string): void {
  if (list !== undefined && list.length !== texts) throw invalid(`${field} must have one entry per text (${texts}), not ${list.length}`);
}

/** Billable units of texts: characters in thousands, rounded up (spec), at least 1. */
const units = (texts: string[]) => Math.max(1, Math.ceil(texts.reduce((n, t) => n + codePointLength(t), 0) / 1000));

/** Route plugin. */
export const diacritizeRoutes: CapabilityRoutes = async (app, kit) => {
  const event = (text: string, language: string, hints: Record<string, string> | null | undefined, o: Options) => ({
    text, model: o.model, language: DIACRITIZE_LANGUAGES[language]!, caseEndings: o.case_endings, hints: hints ?? null, aligned: o.aligned, minConfidence: o.min_confidence,
  });

  const model = (b: Options) => b.model;
  app.post('/v1/diacritize', {
    ...kit.modelRoute({ model, items: () => 1, units: (b: { text: string }) => units([b.text]) }, BODY_LIMITS.diacritize), schema: { tags: ['diacritize'], summary: 'Restore diacritics', operationId: 'diacritize', security: SECURITY, body: DIACRITIZE_BODY, response: { 200: ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as Options & { text: string; language: string; hints?: Record<string, string> };
    const [r] = await kit.dispatch<DiacritizeOutput>(req, b.model, [event(b.text, b.language, b.hints, b)]);
    const out = outputOf(r!);
    const chars = codePointLength(b.text);
    return { text: out.text, model: b.model, language: out.language, usage: { characters: chars, billable_units: Math.ceil(chars / 1000) }, ...(out.warnings?.length ? { warnings: out.warnings } : {}) };
  });

  app.post('/v1/diacritize/batch', {
    ...kit.modelRoute({
      model, items: (b: { texts: string[] }) => b.texts.length, units: (b: { texts: string[] }) => units(b.texts),
      check: (b: { texts: string[]; language: unknown; hints?: unknown[] }) => {
        checkPerText(Array.isArray(b.language) ? b.language : undefined, b.texts.length, 'language');
        checkPerText(b.hints, b.texts.length, 'hints');
      },
    }, BODY_LIMITS.diacritizeBatch), schema: { tags: ['diacritize'], summary: 'Restore diacritics of up to 64 texts', operationId: 'diacritizeBatch', security: SECURITY, body: BATCH_BODY, response: { 200: BATCH_ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as Options & { texts: string[]; language: string | string[]; hints?: Array<Record<string, string> | null> };
    const languages = Array.isArray(b.language) ? b.language : undefined;
    const rs = await kit.dispatch<DiacritizeOutput>(req, b.model,
      b.texts.map((t, i) => event(t, languages ? languages[i]! : (b.language as string), b.hints?.[i], b)));
    // each text succeeds or fails on its own (spec): a failed one is null in `texts` and
    // has an entry in `errors`; only restored texts are billed
    const errors: Array<{ index: number; error: string; status: number; code: string }> = [];
    let chars = 0;
    const texts = rs.map((r, i) => {
      if (r.failure) { errors.push({ index: i, error: r.failure.error, status: r.failure.status, code: codeOf(r.failure) }); return null; }
      chars += codePointLength(b.texts[i]!);
      return r.output.text;
    });
    return {
      texts, languages: rs.map((r) => r.output?.language ?? null), model: b.model,
      usage: { characters: chars, billable_units: Math.ceil(chars / 1000) }, ...(errors.length > 0 ? { errors } : {}),
      ...(rs.some((r) => r.output?.warnings?.length) ? { warnings: rs.map((r) => r.output?.warnings ?? []) } : {}),
    };
  });
};
