/**
 * docs/extending.md is followed to the letter (issue 12, item 3): in a copy of the
 * repository, every block of the page that names a file is written, the registry and
 * usage-schema edits are made, `npm run gen:types` and the type check run, and the
 * service is started and asked for the new capability over HTTP: its route answers from
 * its model through the event log and a worker, GET /v1/models lists the model, warm-up
 * takes its name and GET /v1/usage bills it in its unit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.ts';
import { UNTIL_MIN_MS, until } from '../helpers/service.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'extending.md'), 'utf8');
const KEY = 'extending-key';

/** The page's blocks that name a file: ```lang file=<path> ... ``` */
const FILE_BLOCKS = [...DOC.matchAll(/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => ({ path: m[1]!, text: m[2]! }));

/** Replaces `from` in a file of the copy, failing when the page's instruction no longer fits the file. */
function edit(dir: string, file: string, from: string | RegExp, to: string): void {
  const p = join(dir, file);
  const text = readFileSync(p, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: ${String(from)} not found; docs/extending.md step no longer applies`);
  writeFileSync(p, next);
}

function run(dir: string, args: string[]): void {
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 500_000 });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

describe('docs/extending.md: adding a capability', () => {
  let dir: string;
  let base: string;
  let stop: () => Promise<void> = async () => {};
  const call = (method: string, path: string, body?: unknown) => fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lmstream-extending-'));
    for (const p of ['services', 'schemas', 'scripts', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    // the copy's type check covers what the page changes: services and scripts
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')), include: ['services', 'scripts'] }));

    for (const b of FILE_BLOCKS) {
      mkdirSync(dirname(join(dir, b.path)), { recursive: true });
      writeFileSync(join(dir, b.path), b.text);
    }
    // step 2: one line in the registry (and its import)
    edit(dir, 'services/capabilities/index.ts', "import questions from './questions/index.ts';", "import questions from './questions/index.ts';\nimport echo from './echo/index.ts';");
    edit(dir, 'services/capabilities/index.ts', /(export const CAPABILITY_MODULES = \[[^\]]*)\]/, '$1, echo]');
    // step 4: one symbol in the usage schema
    edit(dir, 'schemas/common/usage.avsc', /("name": "Capability", "symbols": \[[^\]]*)\]/, '$1, "echo"]');
    // step 5
    run(dir, ['--import', 'tsx', 'scripts/gen-types.ts']);
    run(dir, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '.']);

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'services', 'main.ts')], {
      cwd: dir, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: String(port), HEALTH_PORT: '0', DATA_DIR: join(dir, 'data'), MODEL_REPOSITORY: join(dir, 'models'), API_KEYS: KEY, LOG_LEVEL: 'info', RATE_LIMIT_READ_MAX: '1000000' },
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`service did not start:\n${out.slice(-3000)}`)), 300_000);
      const seen = (d: Buffer) => { out += String(d); if (/"msg":"started"/.test(out)) { clearTimeout(timer); resolve(); } };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
      child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`service exited with ${code}:\n${out.slice(-3000)}`)); });
    });
    stop = async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    };
    // the route answers once a worker's heartbeat has announced the model
    await until(async () => {
      const { models } = (await (await call('GET', '/v1/models')).json()) as { models: Array<{ name: string; status: string }> };
      return models.some((m) => m.name === 'echo-1' && m.status === 'available');
    }, UNTIL_MIN_MS, 'echo-1 available');
  });

  afterAll(async () => {
    await stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the files the page names', () => {
    expect(FILE_BLOCKS.map((b) => b.path)).toEqual(expect.arrayContaining([
      'services/capabilities/echo/index.ts', 'services/capabilities/echo/routes.ts', 'services/capabilities/echo/backends/echo-prefix.ts',
      'schemas/echo/request.avsc', 'schemas/echo/result.avsc', 'models/echo-1/config.json',
    ]));
    expect(readFileSync(join(dir, 'services', 'events', 'contract.ts'), 'utf8')).toMatch(/export interface EchoOutput/);
  });

  it('serves the new route from its model, through a worker', async () => {
    const res = await call('POST', '/v1/echo', { text: 'hello world' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ model: 'echo-1', text: 'echo: hello world', usage: { texts: 1 } });
    // the gateway's admission applies to it like to every model route
    expect((await call('POST', '/v1/echo', { text: '' })).status).toBe(400);
    expect((await fetch(`${base}/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' })).status).toBe(401);
  });

  it('lists the model, takes warm-up and bills the capability in its unit', async () => {
    const { models } = (await (await call('GET', '/v1/models')).json()) as { models: Array<Record<string, unknown>> };
    expect(models.find((m) => m.name === 'echo-1')).toMatchObject({ capability: 'echo', endpoint: '/v1/echo', status: 'available', billing_unit: 'texts', default: true });
    expect((await call('POST', '/v1/warmup', { services: ['echo'] })).status).toBe(202);
    let rows: Array<Record<string, unknown>> = [];
    await until(async () => {
      rows = ((await (await call('GET', '/v1/usage')).json()) as { usage: Array<Record<string, unknown>> }).usage;
      return rows.some((r) => r.capability === 'echo');
    }, UNTIL_MIN_MS, 'the echo usage in the ledger');
    expect(rows.find((r) => r.capability === 'echo')).toMatchObject({ model: 'echo-1', unit: 'texts', quantity: 1, requests: 1 });
  });
});
