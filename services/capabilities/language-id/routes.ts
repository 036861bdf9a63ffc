/**
 * POST /v1/language-id and /v1/language-id/batch (spec: "Language identification
 * request"; billing: one text per text) and GET /v1/lid/models (no key needed).
 */
import capability from './index.ts';
import type { LanguageIdOutput } from '../../events/contract.ts';
import { BODY_LIMITS, ERRORS, FIELD_LIMITS, PUBLIC, PUBLIC_ERRORS, SECURITY, answerSchema, outputOf, outputsOf, usageSchema, type CapabilityRoutes } from '../../route-kit/index.ts';
import { LEGACY_LID_MODELS } from './legacy-routes.ts';
import { labelAliases } from './aliases.ts';

const OPTIONS = {
  model: { type: 'string', enum: capability.models.map((m) => m.name), default: capability.defaultModel },
  mode: { type: 'string', enum: ['traffic', 'coverage'], default: 'traffic', description: 'traffic: leans towards widely used languages on short text; coverage: all languages alike' },
  top_k: { type: 'integer', minimum: 1, maximum: 25, default: 3 },
} as const;
const TEXT = { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.lidText } as const;

/** Body schema of POST /v1/language-id. */
export const LID_BODY = { type: 'object', required: ['text'], properties: { text: TEXT, ...OPTIONS } } as const;
const BATCH_BODY = { type: 'object', required: ['texts'], properties: { texts: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.lidBatch, items: TEXT }, ...OPTIONS } } as const;

const ANSWER = answerSchema({
    language: { type: 'string', description: 'ISO 639-3 code; `zxx` for text without language, `und` for letters of a script no model label uses and several languages write' },
    script: { type: 'string', description: 'ISO 15924 code of the text\'s script (`Zxxx` with `zxx`)' },
    label: { type: 'string', description: 'the language code and the script code joined by an underscore (`yor_Latn`): a model label, `zxx_Zxxx` (no letters, or code, markup, random letters), or for a script no label uses the script\'s language from Unicode CLDR (`sat_Olck`) or `und` with the script (`und_Brai`), with a warning' },
    language_name: { type: 'string' },
    confidence: { type: 'number' },
    top: { type: 'array', items: answerSchema({ label: { type: 'string' }, language: { type: 'string' }, score: { type: 'number' } }) },
    warnings: { type: 'array', items: { type: 'string' } },
});
const USAGE = usageSchema('texts');
/** Response schema (200) of POST /v1/language-id. */
export const SINGLE_ANSWER = answerSchema({ ...ANSWER.properties, model: { type: 'string' }, mode: { type: 'string', enum: ['traffic', 'coverage'] }, usage: USAGE });
/** Response schema (200) of POST /v1/language-id/batch. */
export const BATCH_ANSWER = answerSchema({ results: { type: 'array', items: ANSWER }, model: { type: 'string' }, mode: { type: 'string', enum: ['traffic', 'coverage'] }, usage: USAGE });
/** Response schema (200) of GET /v1/lid/models. */
const LID_MODELS = answerSchema({
  models: { type: 'array', items: answerSchema({ name: { type: 'string' }, status: { type: 'string', enum: ['available', 'coming soon'] }, languages: { type: 'integer', description: 'labels the model answers' }, default: { type: 'boolean' } }) },
  legacy: { type: 'array', items: answerSchema({ name: { type: 'string' }, serves_with: { type: 'string' }, languages: { type: 'integer' } }) },
  aliases: { type: 'array', description: 'labels the models answer under another label', items: answerSchema({ alias: { type: 'string' }, label: { type: 'string' }, reason: { type: 'string' } }) },
});

/** The spec's answer fields (snake case) of a decoded answer. */
export function answerBody(a: LanguageIdOutput): Record<string, unknown> {
  return { language: a.language, script: a.script, label: a.label, language_name: a.languageName, confidence: a.confidence, top: a.top, warnings: a.warnings };
}

/**
 * The answer of POST /v1/language-id: {@link answerBody}'s fields, then model, mode and
 * usage, added to that object rather than spread into a new one
 * (`{ ...answerBody(a), model, ... }`): on Node 20 the objects a leading object spread makes
 * outlive the scavenges that should free them (see backends/lid-embedding-bag.ts
 * `itemOutput`); here they were 38 % of the bytes the embedded process promoted under
 * single-route load (a sampling heap profile of the objects scavenges did not free, issue 17).
 */
export function singleAnswer(a: LanguageIdOutput, model: string, mode: string): Record<string, unknown> {
  return Object.assign(answerBody(a), { model, mode, usage: { texts: 1 } });
}

interface Options { model: string; mode: 'traffic' | 'coverage'; top_k: number; }

/**
 * Serializer of a batch answer (up to 256 results), in place of the one Fastify compiles
 * from the response schema (fast-json-stringify), which builds the text by string
 * concatenation: for 64 results it took 116–130 µs against JSON.stringify's 77 µs, the
 * same text, and its string pieces were a quarter of the bytes the embedded process
 * allocated on the batch route (issue 17; a sampling heap profile). The body holds only
 * the schema's fields ({@link answerBody}), so nothing is left for the schema to filter;
 * test/capabilities/language-id/routes.test.ts checks the text against the schema's
 * serializer. For one answer fast-json-stringify is the faster, so the single route keeps it.
 */
const batchJson = (body: unknown): string => JSON.stringify(body);

/** Route plugin. */
export const languageIdRoutes: CapabilityRoutes = async (app, kit) => {
  const model = (b: Options) => b.model;
  app.post('/v1/language-id', {
    ...kit.modelRoute({ model, items: () => 1 }, BODY_LIMITS.languageId),
    schema: {
      tags: ['language-id'], summary: 'Language of a text', operationId: 'languageId', security: SECURITY, body: LID_BODY,
      response: { 200: SINGLE_ANSWER, ...ERRORS },
    },
  }, async (req) => {
    const b = req.body as Options & { text: string };
    const [r] = await kit.dispatch<LanguageIdOutput>(req, b.model, [
      { text: b.text, model: b.model, mode: b.mode, topK: b.top_k, candidates: null },
    ]);
    return singleAnswer(outputOf(r!), b.model, b.mode);
  });

  app.post('/v1/language-id/batch', {
    ...kit.modelRoute({ model, items: (b: { texts: string[] }) => b.texts.length }, BODY_LIMITS.languageIdBatch),
    schema: {
      tags: ['language-id'], summary: 'Languages of up to 256 texts', operationId: 'languageIdBatch', security: SECURITY, body: BATCH_BODY,
      response: { 200: BATCH_ANSWER, ...ERRORS },
    },
  }, async (req, reply) => {
    const b = req.body as Options & { texts: string[] };
    const rs = await kit.dispatch<LanguageIdOutput>(req, b.model,
      b.texts.map((text) => ({ text, model: b.model, mode: b.mode, topK: b.top_k, candidates: null })));
    const body = { results: outputsOf(rs).map(answerBody), model: b.model, mode: b.mode, usage: { texts: b.texts.length } };
    // only the answer: an error thrown above keeps the error schema's serializer (a custom
    // serializer leaves the content type to the route)
    reply.serializer(batchJson).type('application/json; charset=utf-8');
    return body;
  });

  app.get('/v1/lid/models', { schema: { tags: ['info'], summary: 'Language identification models', operationId: 'listLidModels', security: PUBLIC, response: { 200: LID_MODELS, ...PUBLIC_ERRORS } } }, async () => ({
    models: capability.models.map(({ name }) => ({
      name,
      status: kit.models.canServe(name) ? 'available' : 'coming soon',
      languages: kit.models.languages(name),
      default: capability.defaultModel === name,
    })),
    legacy: Object.entries(LEGACY_LID_MODELS).map(([name, servesWith]) => ({ name, serves_with: servesWith, languages: 25 })),
    aliases: labelAliases(),
  }));
};
