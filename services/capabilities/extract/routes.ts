/**
 * POST /v1/extract and /v1/extract/batch (spec: "Extraction request"). Billing: one
 * document per extracted document.
 */
import capability from './index.ts';
import type { ExtractOutput, ExtractRequest } from '../../events/contract.ts';
import { ServiceError, codeOf, invalid } from '../../lib/errors.ts';
import { closeImageThreads, configureImageThreads, decodeImage, imagesSignal } from './images.ts';
import { imageTextError } from './image-text.ts';
import { BODY_LIMITS, ERRORS, ERROR_BODY, FIELD_LIMITS, SECURITY, answerSchema, usageSchema, itemValidator, outputOf, parseTemplate, type CapabilityRoutes } from '../../route-kit/index.ts';

const DOC_FIELDS = {
  template: { type: ['object', 'string'], additionalProperties: true, description: 'shape of the answer (a JSON object, or one as a string); up to 8,000 characters' },
  text: { type: 'string', maxLength: FIELD_LIMITS.extractText },
  image: { type: 'string', description: 'one JPEG or PNG, base64 or data URL, up to 10 MB (its length is checked when decoded)' },
  instructions: { type: 'string', maxLength: FIELD_LIMITS.extractInstructions },
} as const;
const TEXT_OR_IMAGE = [{ required: ['text'] }, { required: ['image'] }];

/** Body schema of POST /v1/extract. */
export const EXTRACT_BODY = {
  type: 'object',
  required: ['template'],
  anyOf: TEXT_OR_IMAGE,
  properties: { ...DOC_FIELDS, model: { type: 'string', enum: capability.models.map((m) => m.name) } },
} as const;

const DOCUMENT = {
  type: 'object', required: ['id', 'template'], anyOf: TEXT_OR_IMAGE,
  properties: { id: { type: ['string', 'integer'], maxLength: FIELD_LIMITS.itemId }, ...DOC_FIELDS },
} as const;
const checkDocument = itemValidator(DOCUMENT);

const BATCH_BODY = {
  type: 'object',
  required: ['documents'],
  properties: {
    model: { type: 'string', enum: capability.models.map((m) => m.name) },
    // each document is checked on its own (DOCUMENT, in the handler), so that a broken one fails alone
    documents: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.extractBatch, items: { type: 'object', additionalProperties: true, description: 'a document: `id` (string or integer), `template`, and `text` and/or `image`, `instructions`, as in POST /v1/extract' } },
  },
} as const;

const MODEL = { type: 'string', enum: capability.models.map((m) => m.name) } as const;
const DATA = { description: 'the template filled in: its shape, null for a missing value, [] for an empty list' } as const;
const CONFIDENCE = { description: 'the shape of data, a number from 0 to 1 (calibrated) per field; an empty list has none' } as const;
const USAGE = usageSchema('documents');
/** Response schema (200) of POST /v1/extract. */
const ANSWER = answerSchema({ model: MODEL, data: DATA, confidence: CONFIDENCE, usage: USAGE });
const ITEM_ID = { type: ['string', 'integer', 'null'], description: "the document's id" } as const;
/** Response schema (200) of POST /v1/extract/batch: a failed document has data and confidence null and an error. */
const BATCH_ANSWER = answerSchema({
  model: MODEL,
  results: {
    type: 'array',
    // the failure first: a serializer takes the first schema an item matches, and a failure matches both
    items: { anyOf: [answerSchema({ id: ITEM_ID, data: { type: 'null' }, confidence: { type: 'null' }, ...ERROR_BODY.properties }), answerSchema({ id: ITEM_ID, data: DATA, confidence: CONFIDENCE })] },
  },
  usage: USAGE,
});

interface Doc { template: unknown; text?: string; image?: string; instructions?: string; }

/**
 * Builds the request event of a document whose template passed its rules; the image is
 * decoded here, after admission. @throws ServiceError INVALID_REQUEST for an image refused
 */
async function toEvent(doc: Doc, template: Record<string, unknown>, model: string, prefix: string, signal?: AbortSignal): Promise<ExtractRequest> {
  const image = doc.image !== undefined ? await decodeImage(doc.image, `${prefix}image`, signal) : null;
  return { model, template: JSON.stringify(template), text: doc.text ?? null, image, instructions: doc.instructions ?? null };
}

/**
 * Rules of a document beyond its schema, before admission looks for the model: its
 * template, and the cheap rules of its image (./image-text.ts; the image threads decode
 * it only after admission).
 * @returns the template as an object
 * @throws ServiceError INVALID_REQUEST naming the field
 */
function checkDocumentRules(doc: Doc, prefix: string): Record<string, unknown> {
  const template = parseTemplate(doc.template, `${prefix}template`);
  if (doc.image !== undefined) {
    const error = imageTextError(doc.image, `${prefix}image`);
    if (error) throw invalid(error);
  }
  return template;
}

/** The documents of a batch after their schema and template rules: failure entries by position, and the valid ones. */
interface DocumentPlan {
  results: Array<Record<string, unknown> | undefined>;
  valid: Array<{ index: number; id: unknown; doc: Doc; template: Record<string, unknown> }>;
}

const failed = (id: unknown, error: string) => ({ id: id ?? null, data: null, confidence: null, error, status: 400, code: 'INVALID_REQUEST' });

/** Checks each document of a batch (no image decoded yet); a broken rule fails that document alone. */
function checkDocuments(b: { documents: Array<Doc & { id?: unknown }> }): DocumentPlan {
  const plan: DocumentPlan = { results: new Array(b.documents.length), valid: [] };
  b.documents.forEach((doc, index) => {
    try {
      checkDocument(doc, `documents[${index}]`);
      plan.valid.push({ index, id: doc.id, doc, template: checkDocumentRules(doc, `documents[${index}].`) });
    } catch (err) {
      if (!(err instanceof ServiceError) || err.status !== 400) throw err;
      plan.results[index] = failed(doc?.id, err.message);
    }
  });
  return plan;
}

const modelOf = (b: { model?: string }) => b.model ?? capability.defaultModel;

/** Route plugin. */
export const extractRoutes: CapabilityRoutes = async (app, kit) => {
  // the gateway's image threads: sized by its `imageThreads` setting, stopped with the app
  configureImageThreads(kit.imageThreads);
  app.addHook('onClose', async () => { await closeImageThreads(); });

  app.post('/v1/extract', {
    ...kit.modelRoute({ model: modelOf, items: () => 1, check: (b: Doc) => checkDocumentRules(b, '') }, BODY_LIMITS.extract),
    schema: { tags: ['extract'], summary: 'A document turned into JSON following a template', operationId: 'extract', security: SECURITY, body: EXTRACT_BODY, response: { 200: ANSWER, ...ERRORS } },
  }, async (req) => {
    const body = req.body as Doc & { model?: string };
    const model = body.model ?? capability.defaultModel;
    const event = await toEvent(body, req.admitted as Record<string, unknown>, model, '', kit.signal(req));
    const [r] = await kit.dispatch<ExtractOutput>(req, model, [event]);
    const out = outputOf(r!);
    return { model, data: JSON.parse(out.data) as unknown, confidence: JSON.parse(out.confidence) as unknown, usage: { documents: 1 } };
  });

  app.post('/v1/extract/batch', {
    ...kit.modelRoute({ model: modelOf, check: checkDocuments, items: (_b: unknown, plan: DocumentPlan) => plan.valid.length }, BODY_LIMITS.extractBatch),
    schema: { tags: ['extract'], summary: 'Up to 16 documents', operationId: 'extractBatch', security: SECURITY, body: BATCH_BODY, response: { 200: BATCH_ANSWER, ...ERRORS } },
  }, async (req) => {
    const model = modelOf(req.body as { model?: string });
    const plan = req.admitted as DocumentPlan;
    const { results } = plan;
    const valid: Array<{ index: number; id: unknown; event: ExtractRequest }> = [];
    // the images of the valid documents decode in parallel in the image threads, on one
    // signal of their own tied to the request's
    const images = imagesSignal(kit.signal(req), plan.valid.length);
    try {
      await Promise.all(plan.valid.map(async (v) => {
        try {
          valid.push({ index: v.index, id: v.id, event: await toEvent(v.doc, v.template, model, `documents[${v.index}].`, images.signal) });
        } catch (err) {
          // only a refused image is the document's failure; anything else (overload, a bug) fails the request
          if (!(err instanceof ServiceError) || err.status !== 400) throw err;
          results[v.index] = failed(v.id, err.message);
        }
      }));
    } finally { images.release(); }
    valid.sort((a, b) => a.index - b.index);
    let documents = 0;
    if (valid.length > 0) {
      const rs = await kit.dispatch<ExtractOutput>(req, model, valid.map((v) => v.event));
      rs.forEach((r, k) => {
        const v = valid[k]!;
        if (r.failure) results[v.index] = { id: v.id, data: null, confidence: null, error: r.failure.error, status: r.failure.status, code: codeOf(r.failure) };
        else { results[v.index] = { id: v.id, data: JSON.parse(r.output.data), confidence: JSON.parse(r.output.confidence) }; documents++; }
      });
    }
    return { model, results, usage: { documents } };
  });
};
