/**
 * Interoperability with Confluent's own clients (issue 36): Confluent's Python
 * CachedSchemaRegistryClient, AvroProducer and AvroConsumer (Debian's
 * python3-confluent-kafka, with python3-avro and python3-requests) re-register the
 * service's request schema as their Avro library writes it and get the service's id, write
 * a bulk job's request events that a language-ID worker (its own process, over librdkafka's
 * mock cluster) consumes and answers, and decode the answers through the project's registry.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaAvailable, startKafka, type TestKafka } from '../helpers/kafka.ts';
import { freePort, startProcess, type ServiceProcess } from '../helpers/processes.ts';

const PYTHON = '/usr/bin/python3';
const clientsAvailable = kafkaAvailable()
  && spawnSync(PYTHON, ['-c', 'import confluent_kafka.avro, requests, avro'], { stdio: 'ignore' }).status === 0;
if (!clientsAvailable && process.env.CI) throw new Error('CI needs Confluent\'s Python clients: apt-get install python3-confluent-kafka python3-avro python3-requests');

const SCRIPT = fileURLToPath(new URL('./confluent_client.py', import.meta.url));
const SCHEMA = fileURLToPath(new URL('../../schemas/language-id/request.avsc', import.meta.url));

describe.skipIf(!clientsAvailable)("Confluent's Python clients", () => {
  let kafka: TestKafka;
  const procs: ServiceProcess[] = [];
  let registryUrl = '';
  const prefix = `py${Date.now()}`;

  beforeAll(async () => {
    kafka = await startKafka();
    const regPort = await freePort();
    registryUrl = `http://127.0.0.1:${regPort}`;
    const env = {
      TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, TOPIC_PREFIX: prefix, DATA_DIR: mkdtempSync(join(tmpdir(), 'py-')), LOG_LEVEL: 'info',
      KAFKA_FETCH_MAX_WAIT_MS: '20', KAFKA_SESSION_TIMEOUT_MS: '6000', HOST: '127.0.0.1', SCHEMA_REGISTRY_URL: registryUrl,
    };
    procs.push(await startProcess('registry', ['registry'], { ...env, SCHEMA_REGISTRY_URL: '', SCHEMA_REGISTRY_PORT: String(regPort) }));
    // the worker registers the service's schemas at its start
    procs.push(await startProcess('worker', ['worker:language-id'], env));
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await kafka?.stop();
  });

  it('register the same schema under the same id, and write a bulk job the service answers and they decode', async () => {
    const texts = ['Habari za asubuhi, rafiki yangu. Leo ni siku nzuri sana.', 'Können Sie mir bitte sagen, wie ich zum Bahnhof komme?'];
    const py = spawn(PYTHON, [SCRIPT, kafka.brokers, registryUrl, prefix, 'pyjob', SCHEMA, ...texts], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    py.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
    py.stderr.on('data', (d: Buffer) => { err = (err + d.toString('utf8')).slice(-4000); });
    const code = await new Promise<number | null>((r) => py.on('exit', r));
    expect(code, err).toBe(0);
    const r = JSON.parse(out) as {
      service_id: number; python_id: number; reversed_id: number; versions: number[]; types: string[];
      replies: Array<{ headers: Record<string, string>; value: { output: { label: string; text: string | null } | null; failure: unknown } }>;
    };
    // regression: the Python client's copy of the schema (its own key order) was registered again as version 2
    expect(r.python_id).toBe(r.service_id);
    expect(r.reversed_id).toBe(r.service_id);
    expect(r.versions).toEqual([1]);
    expect(r.types).toEqual(['AVRO']);
    const byIndex = new Map(r.replies.map((x) => [x.headers['correlation-id'], x.value]));
    expect(byIndex.get('pyjob:0')?.output).toMatchObject({ label: 'swh_Latn', text: texts[0] });
    expect(byIndex.get('pyjob:1')?.output).toMatchObject({ label: 'deu_Latn', text: texts[1] });
  });
});
