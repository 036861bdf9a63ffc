/**
 * Size limits of request bodies, one per route, derived from the spec's field limits
 * (`../shared/spec/api-spec.md`, "Limits" and the request tables) and the limits this
 * service adds where the spec names none (docs/security.md lists both). A body limit is
 * the largest body of a valid request: every text at its longest in characters, each
 * character in its longest JSON form, plus the fixed parts. Fastify refuses a larger body
 * with 413 before reading it (declared Content-Length) or as soon as it grows past it.
 */

/**
 * Longest JSON text of one character (Unicode code point), bytes: a code point above
 * U+FFFF written as two `\uXXXX` escapes (RFC 8259 section 7). JSON Schema `maxLength`
 * (ajv) counts code points, so a string of N characters takes at most 12 N bytes.
 */
export const JSON_BYTES_PER_CHAR = 12;
/** Longest JSON text of one byte of UTF-8 text: a control character as `\u0001` (6 bytes for 1). */
export const JSON_BYTES_PER_UTF8_BYTE = 6;
/** The fixed part of a request: option fields, their names and the syntax, bytes. */
const REQUEST_OVERHEAD = 4096;
/** The fixed part of one batch item: its `id` (≤ 256 characters), field names and syntax, bytes. */
const ITEM_OVERHEAD = 256 * JSON_BYTES_PER_CHAR + 512;

/** Largest JSON string of `chars` characters, bytes (with its quotes and a separator). */
const str = (chars: number): number => chars * JSON_BYTES_PER_CHAR + 3;

/** Spec limits and this service's own (docs/security.md), in characters unless named. */
export const FIELD_LIMITS = {
  /** /v1/language-id text (spec) */
  lidText: 8000,
  /** /v1/language-id/batch texts (spec) */
  lidBatch: 256,
  /** /v1/diacritize text (spec) */
  diacritizeText: 20_000,
  /** /v1/diacritize/batch texts (spec) */
  diacritizeBatch: 64,
  /** diacnet `hints`: entries, word length, meaning length (this service) */
  hintEntries: 64, hintWord: 64, hintMeaning: 200,
  /** /v1/questions/generate passage (spec) */
  passage: 8000,
  /** /v1/questions/generate/batch passages (spec) */
  passageBatch: 64,
  /** question-generation `language`: a code or a name (this service) */
  languageName: 64,
  /** /v1/extract text (spec) */
  extractText: 60_000,
  /** /v1/extract template, characters of its JSON text (spec) */
  template: 8000,
  /** /v1/extract instructions (this service) */
  extractInstructions: 2000,
  /** /v1/extract image, bytes after base64 decoding (spec: 10 MB, read as MiB) */
  imageBytes: 10 * 1024 * 1024,
  /** /v1/extract/batch documents (spec) */
  extractBatch: 16,
  /** /v1/decide state, tokens (spec), and the estimate's UTF-8 bytes per token (validation.ts) */
  contextTokens: 32_000, bytesPerToken: 4,
  /** /v1/decide questions (spec) and choice options (spec) */
  questions: 64, choiceOptions: 255,
  /** decision question `instructions`, an option key, an option description or score level (this service) */
  questionInstructions: 4000, optionKey: 256, optionText: 1000,
  /** /v1/decide/batch cases (spec) */
  decideBatch: 32,
  /** batch item `id` (this service) */
  itemId: 256,
} as const;

/**
 * Base64 text of an image of the largest size: 4 characters per 3 bytes, with a line
 * break after every 76 characters (MIME base64, RFC 2045) and a data-URL prefix.
 */
const IMAGE_JSON = Math.ceil((Math.ceil(FIELD_LIMITS.imageBytes / 3) * 4 * 78) / 76) + 128;
/** Largest UTF-8 text of the decision context (state, or the questions together), bytes. */
const CONTEXT_UTF8 = FIELD_LIMITS.contextTokens * FIELD_LIMITS.bytesPerToken;
/** Syntax of 64 questions with 255 options each (keys as counted in CONTEXT_UTF8, quotes, colons, nulls), bytes. */
const QUESTIONS_SYNTAX = FIELD_LIMITS.questions * (FIELD_LIMITS.choiceOptions * 16 + 128);

const hints = FIELD_LIMITS.hintEntries * (str(FIELD_LIMITS.hintWord) + str(FIELD_LIMITS.hintMeaning));
const extractDocument = str(FIELD_LIMITS.template) + str(FIELD_LIMITS.extractText) + IMAGE_JSON + str(FIELD_LIMITS.extractInstructions);
const decideCase = 2 * CONTEXT_UTF8 * JSON_BYTES_PER_UTF8_BYTE + QUESTIONS_SYNTAX;

/** Body limit per route, bytes (see the module comment; docs/security.md has the figures). */
export const BODY_LIMITS = {
  languageId: REQUEST_OVERHEAD + str(FIELD_LIMITS.lidText),
  languageIdBatch: REQUEST_OVERHEAD + FIELD_LIMITS.lidBatch * str(FIELD_LIMITS.lidText),
  diacritize: REQUEST_OVERHEAD + str(FIELD_LIMITS.diacritizeText) + hints,
  diacritizeBatch: REQUEST_OVERHEAD + FIELD_LIMITS.diacritizeBatch * (str(FIELD_LIMITS.diacritizeText) + hints + 32),
  questions: REQUEST_OVERHEAD + str(FIELD_LIMITS.passage) + str(FIELD_LIMITS.languageName),
  questionsBatch: REQUEST_OVERHEAD + FIELD_LIMITS.passageBatch * str(FIELD_LIMITS.passage) + str(FIELD_LIMITS.languageName),
  extract: REQUEST_OVERHEAD + extractDocument,
  extractBatch: REQUEST_OVERHEAD + FIELD_LIMITS.extractBatch * (extractDocument + ITEM_OVERHEAD),
  decide: REQUEST_OVERHEAD + decideCase,
  decideBatch: REQUEST_OVERHEAD + FIELD_LIMITS.decideBatch * (decideCase + ITEM_OVERHEAD),
  /** POST /v1/warmup: five service names */
  warmup: 1024,
  /** every other route (none reads a body) */
  other: 16 * 1024,
} as const;

/** Deepest nesting of a JSON body: the body object is level 1 (docs/security.md). */
export const MAX_JSON_DEPTH = 64;

/**
 * Largest image a request may declare in its header, pixels (width × height), checked
 * before decoding: a 50-megapixel photo (8,660 × 5,773) is the largest a current phone
 * camera writes; a PNG of a few KB can declare 20,000 × 13,000 and take gigabytes to decode.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;
