/**
 * The JSON body parser of the gateway: Fastify's own (secure-json-parse, which refuses
 * `__proto__` and `constructor.prototype` keys), an empty body read as no body (POST
 * /v1/warmup "with no body"), and a nesting-depth limit checked on the raw text before
 * it is parsed, so no handler ever walks a structure deep enough to overflow the stack (a
 * `state` nested 5,000 deep used to fail inside `JSON.stringify`), and a body too deep
 * costs one pass over its first bytes, not a parse: checked after parsing, a 16 MB body
 * of arrays nested 8,000,000 deep held the event loop for 8.9 s before its 400, and every
 * tenant's requests with it.
 */
import type { FastifyInstance } from 'fastify';
import { invalid } from '../lib/errors.ts';
import { MAX_JSON_DEPTH } from '../route-kit/limits.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * Nesting depth of a JSON text (a scalar is 0, `{}` or `[]` is 1), found in one pass over
 * its characters without parsing it: brackets outside strings open and close levels (a
 * backslash in a string escapes the next character, RFC 8259 section 7). It stops as soon
 * as the depth passes `limit`, so a too-deep text costs time linear in the bytes read up
 * to there. For a text that is not valid JSON the figure may be wrong; the parser that
 * runs next refuses such a text.
 * @returns the depth, or `limit + 1` when it is deeper than `limit`
 */
export function textDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return limit + 1;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Rule: a JSON body is nested at most {@link MAX_JSON_DEPTH} levels, checked on its text.
 * @throws ServiceError INVALID_REQUEST (400) naming the limit
 */
export function checkDepth(text: string): void {
  // each level takes an opening and a closing bracket: a shorter text cannot be too deep
  if (text.length > 2 * MAX_JSON_DEPTH && textDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw invalid(`JSON body is nested deeper than ${MAX_JSON_DEPTH} levels (the limit of this service)`);
  }
}

/** Replaces the `application/json` parser of `app` with the one described in the module comment. */
export function registerJsonParser(app: FastifyInstance): void {
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, null);
    try { checkDepth(text); } catch (e) { return done(e as Error, undefined); }
    jsonParser(req, text, done);
  });
}
