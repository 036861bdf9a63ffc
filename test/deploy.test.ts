/**
 * docker-compose.yml and deploy/ cannot run here; this keeps them consistent with the
 * code: every service, port, consumer group, topic and environment variable they name
 * must exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { CAPABILITIES } from '../services/capabilities/index.ts';
import { CONFIG_KEYS, loadConfig } from '../services/config.ts';
import { topicsFor } from '../services/events/topics.ts';
import { parseServices } from '../services/runtime.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const serviceOf = (args: string[]) => args[args.indexOf('--service') + 1]!;
type Doc = Record<string, any>;

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Doc;
  const ours = Object.entries(compose.services as Record<string, Doc>).filter(([, s]) => s.build);
  it('runs known services with known settings', () => {
    expect(ours.length).toBeGreaterThan(0);
    for (const [name, s] of ours) {
      expect(() => parseServices([serviceOf(s.command)]), name).not.toThrow();
      for (const key of Object.keys(s.environment ?? {})) expect(CONFIG_KEYS, `${name}: ${key}`).toContain(key);
      // the values are accepted by the config schema
      expect(() => loadConfig(Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, String(v).replace(/\$\{[^}]+\}/, 'x')])) as never), name).not.toThrow();
    }
  });
  it('has a worker per capability, billing and a gateway publishing its PORT', () => {
    const services = ours.map(([, s]) => serviceOf(s.command));
    expect(services).toEqual(expect.arrayContaining([...CAPABILITIES.map((c) => `worker:${c}`), 'billing', 'gateway']));
    const [, gw] = ours.find(([, s]) => serviceOf(s.command) === 'gateway')!;
    expect(gw.ports).toContain(`${gw.environment.PORT}:${gw.environment.PORT}`);
    expect(gw.environment.MODEL_REPOSITORY).toBe('/app/models');
    expect(ours.every(([, s]) => s.volumes?.includes('./models:/app/models:ro'))).toBe(true);
  });
  it('points at the Kafka, registry and PostgreSQL services it defines', () => {
    const env = ours[0]![1].environment;
    expect(compose.services[env.KAFKA_BROKERS.split(':')[0]]).toBeDefined();
    expect(compose.services[new URL(env.SCHEMA_REGISTRY_URL).hostname]).toBeDefined();
    expect(compose.services[new URL(env.DATABASE_URL).hostname]).toBeDefined();
    expect(compose.services.kafka.image).toMatch(/^apache\/kafka:/);
  });
});

describe('deploy/ (Kubernetes)', () => {
  const docs = readdirSync(join(ROOT, 'deploy')).filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(ROOT, 'deploy', f), 'utf8')).map((d) => d.toJS() as Doc));
  const configMaps = Object.fromEntries(docs.filter((d) => d.kind === 'ConfigMap' || d.kind === 'Secret').map((d) => [d.metadata.name, { ...d.data, ...d.stringData }]));
  const deployments = docs.filter((d) => d.kind === 'Deployment');
  const env = { ...configMaps['lmstream-env'], ...configMaps['lmstream-topics'] } as Record<string, string>;

  it('names only known settings, config maps and services', () => {
    for (const [name, data] of Object.entries(configMaps)) for (const key of Object.keys(data as object)) expect(CONFIG_KEYS, `${name}: ${key}`).toContain(key);
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        expect(() => parseServices([serviceOf(c.args)]), d.metadata.name).not.toThrow();
        for (const ref of c.envFrom ?? []) expect(configMaps[(ref.configMapRef ?? ref.secretRef).name], d.metadata.name).toBeDefined();
        for (const e of c.env ?? []) expect(CONFIG_KEYS).toContain(e.name);
      }
    }
    expect(() => loadConfig(env as never)).not.toThrow();
  });
  it('has a worker Deployment per capability, a billing Deployment and a gateway whose ports match PORT', () => {
    const services = deployments.flatMap((d) => d.spec.template.spec.containers.map((c: Doc) => serviceOf(c.args)));
    expect(services).toEqual(expect.arrayContaining([...CAPABILITIES.map((c) => `worker:${c}`), 'billing', 'gateway']));
    const gw = deployments.find((d) => d.metadata.name === 'lmstream-gateway')!.spec.template.spec.containers[0];
    const port = Number(gw.env.find((e: Doc) => e.name === 'PORT').value);
    expect(gw.ports[0].containerPort).toBe(port);
    const svc = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'lmstream-gateway')!;
    expect(svc.spec.ports[0].targetPort).toBe(port);
  });
  it('probes every pod on the health thread port: liveness /health, and the gateway readiness /ready', () => {
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      const health = c.ports?.find((p: { name: string }) => p.name === 'health');
      expect(health?.containerPort, d.metadata.name).toBe(Number(env.HEALTH_PORT));
      expect(c.livenessProbe.httpGet, d.metadata.name).toEqual({ path: '/health', port: 'health' });
      expect(c.livenessProbe.timeoutSeconds, d.metadata.name).toBe(1);
    }
    const gw = deployments.find((d) => d.metadata.name === 'lmstream-gateway')!.spec.template.spec.containers[0];
    expect(gw.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'health' });
  });
  it('scales each worker on the lag of the consumer group and topic the code uses', () => {
    const scaled = docs.filter((d) => d.kind === 'ScaledObject');
    expect(scaled).toHaveLength(CAPABILITIES.length);
    const topics = topicsFor(env.TOPIC_PREFIX!);
    for (const c of CAPABILITIES) {
      const s = scaled.find((d) => d.spec.scaleTargetRef.name === `lmstream-worker-${c}`)!;
      expect(deployments.some((d) => d.metadata.name === s.spec.scaleTargetRef.name)).toBe(true);
      expect(s.spec.triggers[0].metadata.consumerGroup).toBe(`${env.TOPIC_PREFIX}.workers.${c}`);
      expect(s.spec.triggers[0].metadata.topic).toBe(topics.requests(c));
      expect(s.spec.triggers[0].metadata.bootstrapServers).toBe(env.KAFKA_BROKERS);
      expect(s.spec.maxReplicaCount).toBeLessThanOrEqual(Number(env.TOPIC_PARTITIONS));
    }
  });
});

describe('node flags (services/node-flags.ts)', () => {
  const before = (command: string[]) => command.slice(0, command.indexOf('--import'));
  it('npm start runs the service with them', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const start = pkg.scripts.start!.split(/\s+/);
    expect(start[0]).toBe('node');
    expect(before(start)).toEqual(['node', ...NODE_FLAGS]);
    expect(start.slice(start.indexOf('--import'))).toEqual(['--import', 'tsx', 'services/main.ts']);
  });
  it('the image runs the service with them', () => {
    const line = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('ENTRYPOINT'))!;
    const entrypoint = JSON.parse(line.slice('ENTRYPOINT'.length)) as string[];
    expect(before(entrypoint)).toEqual(['node', ...NODE_FLAGS]);
    expect(entrypoint.at(-1)).toBe('services/main.ts');
  });
});
