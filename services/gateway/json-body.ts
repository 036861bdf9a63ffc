/**
 * The JSON body parser of the gateway: Fastify's own (secure-json-parse, which refuses
 * `__proto__` and `constructor.prototype` keys), an empty body read as no body (POST
 * /v1/warmup "with no body"), and a nesting-depth limit checked right after parsing, so
 * no handler ever walks a structure deep enough to overflow the stack (a `state` nested
 * 5,000 deep used to fail inside `JSON.stringify`).
 */
import type { FastifyInstance } from 'fastify';
import { invalid } from '../lib/errors.ts';
import { MAX_JSON_DEPTH } from '../route-kit/limits.ts';

/**
 * Nesting depth of a parsed JSON value (a scalar is 0, `{}` or `[]` is 1), found without
 * recursion and given up as soon as it passes `limit`.
 * @returns the depth, or `limit + 1` when it is deeper than `limit`
 */
export function jsonDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return limit + 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/**
 * Rule: a JSON body is nested at most {@link MAX_JSON_DEPTH} levels.
 * @throws ServiceError INVALID_REQUEST (400) naming the limit
 */
export function checkDepth(value: unknown): void {
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
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
    jsonParser(req, text, (err, parsed) => {
      if (err) return done(err, undefined);
      // each level takes an opening and a closing bracket: a shorter text cannot be too deep
      if (text.length > 2 * MAX_JSON_DEPTH) {
        try { checkDepth(parsed); } catch (e) { return done(e as Error, undefined); }
      }
      done(null, parsed);
    });
  });
}
