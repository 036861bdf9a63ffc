/**
 * POST /v1/extract and /v1/extract/batch (spec: "Extraction request"). Billing: one
 * document per extracted document.
 */
import type { FastifyPluginAsync } from 'fastify';
import { DEFAULT_MODEL, modelsOf } from '../../capabilities.ts';
import type { ServiceError } from '../../lib/errors.ts';
import { contextOf, type RouteDeps } from '../deps.ts';
import { outputOf } from '../dispatcher.ts';
import { decodeImage, itemValidator, parseTemplate } from '../validation.ts';
import { AUTHED, ERRORS, SECURITY } from './common.ts';

const DOC_FIELDS = {
  template: { type: ['object', 'string'], description: 'shape of the answer; up to 8,000 characters' },
  text: { type: 'string', maxLength: 60000 },
  image: { type: 'string', description: 'one JPEG or PNG, base64 or data URL, up to 10 MB' },
  instructions: { type: 'string' },
} as const;
const TEXT_OR_IMAGE = [{ required: ['text'] }, { required: ['image'] }];

/** Body schema of POST /v1/extract. */
export const EXTRACT_BODY = {
  type: 'object',
  required: ['template'],
  anyOf: TEXT_OR_IMAGE,
  properties: { ...DOC_FIELDS, model: { type: 'string', enum: modelsOf('extract') } },
} as const;

const DOCUMENT = { type: 'object', required: ['id', 'template'], anyOf: TEXT_OR_IMAGE, properties: { id: { type: ['string', 'integer'] }, ...DOC_FIELDS } } as const;
const checkDocument = itemValidator(DOCUMENT);

const BATCH_BODY = {
  type: 'object',
  required: ['documents'],
  properties: {
    model: { type: 'string', enum: modelsOf('extract') },
    documents: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'object' } },
  },
} as const;

interface Doc { template: unknown; text?: string; image?: string; instructions?: string; }
interface ExtractOutput { data: string; confidence: string; }

/** Builds the request event of a document; throws INVALID_REQUEST for a broken rule. */
async function toEvent(doc: Doc, model: string, prefix: string): Promise<Record<string, unknown>> {
  const template = parseTemplate(doc.template, `${prefix}template`);
  const image = doc.image !== undefined ? await decodeImage(doc.image, `${prefix}image`) : null;
  return { model, template: JSON.stringify(template), text: doc.text ?? null, image, instructions: doc.instructions ?? null };
}

/** Route plugin. */
export const extractRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.post('/v1/extract', {
    ...AUTHED, bodyLimit: 16 * 1024 * 1024,
    schema: { tags: ['extract'], summary: 'A document turned into JSON following a template', security: SECURITY, body: EXTRACT_BODY, response: ERRORS },
  }, async (req) => {
    const body = req.body as Doc & { model?: string };
    const model = body.model ?? DEFAULT_MODEL.extract;
    const event = await toEvent(body, model, '');
    const [r] = await deps.dispatcher.dispatch<ExtractOutput>('extract', model, [event], contextOf(req, deps.config));
    const out = outputOf(r!);
    return { model, data: JSON.parse(out.data) as unknown, confidence: JSON.parse(out.confidence) as unknown, usage: { documents: 1 } };
  });

  app.post('/v1/extract/batch', {
    ...AUTHED, bodyLimit: 16 * 14 * 1024 * 1024 + 1024 * 1024,
    schema: { tags: ['extract'], summary: 'Up to 16 documents', security: SECURITY, body: BATCH_BODY, response: ERRORS },
  }, async (req) => {
    const body = req.body as { model?: string; documents: Array<Doc & { id?: unknown }> };
    const model = body.model ?? DEFAULT_MODEL.extract;
    const results: Array<Record<string, unknown> | undefined> = new Array(body.documents.length);
    const valid: Array<{ index: number; id: unknown; event: Record<string, unknown> }> = [];
    for (const [index, doc] of body.documents.entries()) {
      try {
        checkDocument(doc, `documents[${index}]`);
        valid.push({ index, id: doc.id, event: await toEvent(doc, model, `documents[${index}].`) });
      } catch (err) {
        results[index] = { id: doc?.id ?? null, data: null, confidence: null, error: (err as ServiceError).message, status: 400 };
      }
    }
    let documents = 0;
    if (valid.length > 0) {
      const rs = await deps.dispatcher.dispatch<ExtractOutput>('extract', model, valid.map((v) => v.event), contextOf(req, deps.config));
      rs.forEach((r, k) => {
        const v = valid[k]!;
        if (r.failure) results[v.index] = { id: v.id, data: null, confidence: null, error: r.failure.error, status: r.failure.status };
        else { results[v.index] = { id: v.id, data: JSON.parse(r.output.data), confidence: JSON.parse(r.output.confidence) }; documents++; }
      });
    }
    return { model, results, usage: { documents } };
  });
};
