/**
 * The first run (issue 36): models the default routes use are loaded before /ready answers
 * 200 (MODEL_PRELOAD), so the first request after ready loads nothing; `npm start` says in
 * one line what stops it (an invalid variable, a port in use) and says when no API key is
 * configured.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { freePort } from './helpers/processes.ts';
import { post, startService, until } from './helpers/service.ts';

const MAIN = join(import.meta.dirname, '..', 'services', 'main.ts');

/** Runs `services/main.ts` until it exits or `until` matches its output (then stops it). */
function runMain(env: Record<string, string>, stopWhen?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'main-')), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += String(d); if (stopWhen?.test(stdout)) child.kill('SIGTERM'); });
  child.stderr.on('data', (d: Buffer) => { stderr += String(d); });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('model preload (MODEL_PRELOAD)', () => {
  it('loads the default models before /ready answers 200, keeps them loaded, and the first request after ready loads nothing', async () => {
    const lines: Array<{ msg?: string; model?: string }> = [];
    const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
    const svc = await startService({ MODEL_PRELOAD: 'default', LOG_LEVEL: 'info', MODEL_IDLE_UNLOAD_MS: 1000 }, { capabilities: ['language-id', 'diacritize'], logger: pino({ level: 'info' }, sink) });
    try {
      const ready = async () => (await svc.gateway.app.inject({ method: 'GET', url: '/ready' })).json() as { ready: boolean; loading_models: string[] };
      const first = await ready();
      // not ready while loading (unless both loaded already, on a fast machine)
      if (!first.ready) expect(first.loading_models.length).toBeGreaterThan(0);
      await until(async () => (await ready()).ready, 120_000, '/ready');
      const loadedAtReady = lines.filter((l) => l.msg === 'model loaded').map((l) => l.model).sort();
      expect(loadedAtReady).toEqual(['diacnet-2.0', 'lid-neural-608']);
      // the first requests of the default models after ready: no model loads for them
      const lid = await post(svc, '/v1/language-id', { text: 'Habari za asubuhi, rafiki yangu' });
      expect(lid.status).toBe(200);
      const dia = await post(svc, '/v1/diacritize', { text: 'Zazolc gesla jazn', language: 'pol' });
      expect(dia.status).toBe(200);
      expect(lines.filter((l) => l.msg === 'model loaded')).toHaveLength(2);
      // preloaded models stay loaded past the idle time (1 s here), a model loaded on demand does not
      expect((await post(svc, '/v1/language-id', { text: 'Good morning', model: 'lid-lite-608' })).status).toBe(200);
      await until(() => lines.some((l) => l.msg === 'model unloaded after idle time'), 120_000, 'idle unload');
      expect(lines.filter((l) => l.msg === 'model unloaded after idle time').map((l) => l.model)).toEqual(['lid-lite-608']);
    } finally { await svc.close(); }
  });

  it('loads nothing at start with MODEL_PRELOAD=none: ready at once', async () => {
    const svc = await startService({ MODEL_PRELOAD: 'none' }, { capabilities: ['language-id'] });
    try {
      expect((await svc.gateway.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ ready: true, loading_models: [] });
    } finally { await svc.close(); }
  });
});

describe('npm start', () => {
  it('says in one line which variable is invalid, with its value and rule, and exits 2', async () => {
    const r = await runMain({ PORT: 'abc' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lmstream: configuration: PORT="abc" must be integer (README, "Configuration")\n');
    const level = await runMain({ LOG_LEVEL: 'loud' });
    expect(level.code).toBe(2);
    expect(level.stderr).toBe('lmstream: configuration: LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent (README, "Configuration")\n');
    const inflight = await runMain({ MAX_INFLIGHT_ITEMS: 'teleport=3', API_KEYS: 'k' });
    expect(inflight.code).toBe(2);
    expect(inflight.stderr).toMatch(/^lmstream: configuration: MAX_INFLIGHT_ITEMS="teleport=3" unknown capability "teleport" \(one of [^\n]*\)\n$/);
  });

  it('says in one line that the port is in use, and exits 1', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const r = await runMain({ PORT: String(port), API_KEYS: 'k', MODEL_PRELOAD: 'none', LOG_LEVEL: 'silent' });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`lmstream: port ${port} on 127.0.0.1 is in use by another process: stop it, or set PORT to a free port\n`);
      // the health port's thread says it the same way
      const h = await runMain({ PORT: String(await freePort()), HEALTH_PORT: String(port), API_KEYS: 'k', MODEL_PRELOAD: 'none', LOG_LEVEL: 'silent' });
      expect(h.code).toBe(1);
      expect(h.stderr).toBe(`lmstream: port ${port} on 127.0.0.1 is in use by another process: stop it, or set HEALTH_PORT to a free port\n`);
    } finally { blocker.close(); }
  });

  it('logs how to make a key when none is configured', async () => {
    const r = await runMain({ PORT: String(await freePort()), MODEL_PRELOAD: 'none', LOG_LEVEL: 'info' }, /no API key is configured/);
    expect(r.stdout).toMatch(/no API key is configured.*npm run keys -- create --name NAME/);
    const withKey = await runMain({ PORT: String(await freePort()), MODEL_PRELOAD: 'none', LOG_LEVEL: 'info', API_KEYS: 'k' }, /"msg":"started"/);
    expect(withKey.stdout).toMatch(/"msg":"started"/);
    expect(withKey.stdout).not.toMatch(/no API key/);
  });
});
