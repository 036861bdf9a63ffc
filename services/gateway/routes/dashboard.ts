/**
 * GET /dashboard (issue 16): the operator dashboard, a static page served by the gateway
 * with no build step (services/gateway/dashboard/: index.html, app.js, app.css) and uPlot
 * (MIT) from its npm package. The page asks for an API key, keeps it in the tab's
 * sessionStorage and reads GET /v1/analytics (and, for an admin key, GET
 * /v1/analytics/pipeline). Every file is sent with a strict
 * Content-Security-Policy: scripts, styles and fetches of this origin only, no inline
 * code, no frames, no forms posting elsewhere. No key is needed to load the page.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import type { RouteDeps } from '../deps.ts';

/** The Content-Security-Policy of the dashboard's files. */
export const DASHBOARD_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..', 'dashboard');
const UPLOT = join(dirname(createRequire(import.meta.url).resolve('uplot')), '.');

/** Route plugin. */
export const dashboardRoutes: FastifyPluginAsync<RouteDeps> = async (app) => {
  const files: Record<string, { type: string; body: Buffer }> = {
    '/dashboard': { type: 'text/html; charset=utf-8', body: readFileSync(join(HERE, 'index.html')) },
    '/dashboard/app.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(join(HERE, 'app.js')) },
    '/dashboard/app.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(HERE, 'app.css')) },
    '/dashboard/uPlot.iife.min.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(join(UPLOT, 'uPlot.iife.min.js')) },
    '/dashboard/uPlot.min.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(UPLOT, 'uPlot.min.css')) },
  };
  for (const [url, f] of Object.entries(files)) {
    app.get(url, { schema: { hide: true } }, async (_req, reply) => reply
      .header('content-type', f.type).header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('cache-control', 'no-cache')
      .send(f.body));
  }
};
