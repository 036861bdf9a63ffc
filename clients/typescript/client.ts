/**
 * A typed client of the service: openapi-fetch over the types openapi-typescript makes of
 * the OpenAPI document (./schema.ts, `npm run gen:openapi`). Every path, body and answer is
 * typed from the document, so a client that compiles against it calls the service as
 * documented; test/clients/openapi.test.ts calls every route with it.
 *
 * ```ts
 * const api = lmstreamClient('http://localhost:8080', process.env.LMSTREAM_KEY);
 * const { data, error } = await api.POST('/v1/language-id', { body: { text: 'Habari za asubuhi' } });
 * ```
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.ts';

/** The service's paths, as the document describes them. */
export type { paths } from './schema.ts';

/** A client of one gateway. */
export type LmstreamClient = Client<paths>;

/**
 * A client of the gateway at `baseUrl` (e.g. http://localhost:8080) that sends `apiKey`
 * as `Authorization: Bearer <apiKey>` when given. Answers come back as `{ data }` (2xx)
 * or `{ error }` (the service's `{error, status, code}` body), with `response`.
 */
export function lmstreamClient(baseUrl: string, apiKey?: string): LmstreamClient {
  return createClient<paths>({ baseUrl, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
}
