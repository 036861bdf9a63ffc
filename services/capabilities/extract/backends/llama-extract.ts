/**
 * Backend `llama-extract` (issue 15): document extraction on a GGUF instruct model through
 * llama.cpp (services/llm/), for `mist-extract-1.0` and `mist-extract-flash-1.0` (two
 * folders, two weights files, this one engine; docs/extract.md).
 *
 * Per document: an image's text is read by OCR (./ocr.ts); the prompt gives the template,
 * the caller's instructions, the text and the OCR text; the answer is generated greedily
 * under the grammar of the template's JSON Schema (./template.ts), so it always has the
 * template's shape; then values the template rules out are nulled and each field gets a
 * confidence from its tokens' probabilities (./fill.ts). A document stops when its request
 * is cancelled or its deadline passes (checked before each generated token) and frees
 * its sequence. Documents run on the model's sequences at once (continuous batching).
 */
import type { ExtractOutput, ExtractRequest, ItemResult } from '../../../events/contract.ts';
import { failed } from '../../../events/results.ts';
import { generateWithGrammar } from '../../../llm/generate.ts';
import { jsonSchemaGrammar } from '../../../llm/grammar.ts';
import { clean, closeLlm, openLlm, splitPrompt, type GenerativeConfig, type LoadedLlm } from '../../../llm/model.ts';
import { ModelRepository, type InstalledModel } from '../../../models/repository.ts';
import { LoadedModels } from '../../../workers/engines/sessions.ts';
import { checkStop, EngineError, type Engine, type EngineContext, type RunControl } from '../../../workers/engines/types.ts';
import { fillTemplate } from '../fill.ts';
import { Ocr } from '../ocr.ts';
import { templateSchema, type TemplateLimits } from '../template.ts';

/** config.json fields of an extraction model (beside services/llm/model.ts's). */
export interface ExtractConfig extends GenerativeConfig {
  /** Tesseract languages for images (default ["eng"]); those without installed data are left out */
  ocr_languages?: string[];
  /** longest string value, characters (default 1,000) */
  max_value_chars?: number;
  /** most items of a list (default 100) */
  max_list_items?: number;
  /** most tokens of an answer (default 4,096) */
  max_output_tokens?: number;
  /** calibration temperature of field confidences (default 1) */
  calibration?: { field?: number };
}

/** The system message of every extraction. */
export const SYSTEM = [
  'You extract information from a document into JSON that follows a template: the same keys and nesting.',
  'Leaf types: "verbatim-string" is copied exactly as the document writes it; "string" is free text; "number" and "integer" are plain numbers without currency symbols or thousands separators;',
  '"date" is YYYY-MM-DD and "date-time" an ISO date and time; "boolean" is true or false; a list of options means one of them; a list inside a list means any number of them;',
  '["string"] is a list of values; a list with an object is a list of such objects.',
  'Write null for a value the document does not give and [] for an empty list. Never invent values.',
].join(' ');

/** The user message of a document. */
export function userMessage(template: unknown, text: string | null, ocrText: string | null, instructions: string | null): string {
  return [
    `Template:\n${JSON.stringify(template)}`,
    instructions ? `Instructions: ${clean(instructions)}` : '',
    text ? `Document:\n${clean(text)}` : '',
    ocrText ? `Text read from the document's image:\n${clean(ocrText)}` : '',
  ].filter(Boolean).join('\n\n');
}

/** A loaded extraction model. */
export interface ExtractModel {
  llm: LoadedLlm;
  ocr: Ocr;
  limits: TemplateLimits;
  maxOutputTokens: number;
  temperature: number;
}

/**
 * Loads an extraction model.
 * @param sequences documents evaluated at once (config.json `max_batch_size`)
 * @throws Error when the weights do not load
 */
export async function openExtractModel(cfg: InstalledModel & ExtractConfig, sequences: number, threads: number): Promise<ExtractModel> {
  return {
    llm: await openLlm(cfg, sequences, threads),
    ocr: new Ocr(cfg.ocr_languages ?? ['eng']),
    limits: { maxValueChars: cfg.max_value_chars ?? 1000, maxListItems: cfg.max_list_items ?? 100 },
    maxOutputTokens: cfg.max_output_tokens ?? 4096,
    temperature: cfg.calibration?.field ?? 1,
  };
}

/** Frees an extraction model. */
export async function closeExtractModel(m: ExtractModel): Promise<void> {
  await m.ocr.close();
  await closeLlm(m.llm);
}

/**
 * Extracts one document.
 * @returns the answer, and the tokens evaluated (prompt and answer)
 * @throws EngineError CONTEXT_TOO_LONG (the document and template exceed the context, or the answer its token budget), MODEL_NOT_INSTALLED (an image without OCR data), CANCELLED, DEADLINE_EXCEEDED
 */
export async function extractDocument(m: ExtractModel, input: ExtractRequest, check: () => void = () => {}): Promise<{ output: ExtractOutput; evaluated: number }> {
  let template: Record<string, unknown>;
  try { template = JSON.parse(input.template) as Record<string, unknown>; } catch { throw new EngineError('INVALID_REQUEST', 'extraction event does not hold a JSON template'); }
  let ocrText: string | null = null;
  if (input.image) {
    if (m.ocr.installed().length === 0) throw new EngineError('MODEL_NOT_INSTALLED', 'the text of images cannot be read here: no Tesseract language data is installed');
    check();
    ocrText = await m.ocr.read(input.image);
  }
  const { shared, tails } = splitPrompt(m.llm, SYSTEM, userMessage(template, input.text ?? null, ocrText, input.instructions ?? null), ['']);
  const prompt = [...shared, ...tails[0]!.tokenize(m.llm.model.tokenizer)];
  const room = m.llm.contextSize - prompt.length;
  if (room < 16) throw new EngineError('CONTEXT_TOO_LONG', `the document, template and instructions take ${prompt.length} tokens, over the model's maximum context length of ${m.llm.contextSize} tokens less room for the answer`);
  const maxTokens = Math.min(m.maxOutputTokens, room);
  // a template that cannot be a grammar (the gateway refuses the known causes) fails its document alone
  const grammar = await jsonSchemaGrammar(templateSchema(template, m.limits)).catch((err: unknown) => {
    throw new EngineError('INVALID_REQUEST', `the template cannot be turned into a grammar: ${(err as Error).message.split('\n')[0]}`);
  });
  const gen = await m.llm.sequences.use((seq) => generateWithGrammar(m.llm.model, seq, prompt, grammar, maxTokens, check));
  if (gen.truncated) throw new EngineError('CONTEXT_TOO_LONG', `the answer needs more than ${maxTokens} tokens (the model's context is ${m.llm.contextSize} tokens)`);
  const filled = fillTemplate(template, gen.text, gen.tokens, [input.text ?? '', ocrText ?? ''].join('\n'), m.temperature);
  return { output: { data: JSON.stringify(filled.data), confidence: JSON.stringify(filled.confidence) }, evaluated: gen.evaluated };
}

/** The engine of backend `llama-extract` (services/workers/engines/types.ts). */
export function createEngine(ctx: EngineContext): Engine<ExtractRequest, ExtractOutput> {
  const repo = new ModelRepository(ctx.repository);
  const models = new LoadedModels<ExtractModel>(async (name) => {
    const cfg = repo.config(name) as (InstalledModel & ExtractConfig) | null;
    if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
    return openExtractModel(cfg, cfg.max_batch_size, ctx.intraOpThreads);
  }, closeExtractModel);
  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs, control?: RunControl) {
      const m = await models.get(name);
      return Promise.all(inputs.map(async (input, i): Promise<ItemResult<ExtractOutput>> => {
        try {
          return { output: (await extractDocument(m, input, () => checkStop(control, i))).output, failure: null };
        } catch (err) {
          if (err instanceof EngineError) return failed(err.code, err.message);
          throw err;
        }
      }));
    },
  };
}
