/**
 * GET /v1/analytics (issue 16): time series and group-bys over the analytics buckets
 * (services/analytics/). A key sees its own traffic; an admin key (`npm run keys --
 * grant-admin`, or API_ADMIN_KEYS) sees every key's and may filter by `key`.
 *
 * Query: `from`, `to` (ISO date-times or ms since the epoch; default the last hour),
 * `step` (1m, 5m, 15m, 1h, 6h, 1d; default the smallest that keeps 120 points),
 * `group_by` (comma-separated: capability, model, key, status, code, label, source), and
 * filters of the same names (`source`: `gateway`, or `bulk` for bulk ingestion, whose key
 * is `bulk:<job>`). Limits: a range of at most 400 days, at most 1,440 steps, at most
 * 500 series (400 beyond).
 *
 * GET /v1/analytics/pipeline (admin keys only): the consumer lag of the pipeline's consumer
 * groups (services/lib/consumer-lag.ts) and the live workers with their models, from
 * their heartbeats.
 */
import type { FastifyPluginAsync } from 'fastify';
import { aggregate, defaultStep, DIMENSIONS, MAX_POINTS, MAX_RANGE_MS, STEPS, type Dimension } from '../../analytics/query.ts';
import { consumerLags } from '../../lib/consumer-lag.ts';
import { ServiceError, invalid } from '../../lib/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { ACCOUNT_ERRORS, ACCOUNT_READ, SECURITY, answerSchema } from '../../route-kit/schemas.ts';

const TIME = { type: 'string', pattern: '^(\\d{1,15}|\\d{4}-\\d{2}-\\d{2}T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))$', maxLength: 40 } as const;
const FILTER = { type: 'string', maxLength: 256 } as const;

const MS = { type: ['number', 'null'], description: 'ms; null without events' } as const;
const MEASURES = {
  events: { type: 'integer' }, items: { type: 'integer' }, billable: { type: 'number' }, errors: { type: 'integer', description: 'events whose status is not 200' },
  p50_ms: MS, p95_ms: MS, p99_ms: MS, queue_ms_avg: MS, inference_ms_avg: MS,
} as const;
const GROUP = { type: 'object', additionalProperties: { type: ['string', 'integer'] }, description: 'the value of each group_by dimension' } as const;
const ANALYTICS = answerSchema({
  scope: { type: 'string', description: "the key whose traffic this is, or 'all keys'" },
  from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' }, step_ms: { type: 'integer' },
  group_by: { type: 'array', items: { type: 'string', enum: [...DIMENSIONS] } },
  filters: { type: 'object', additionalProperties: { type: 'string' } },
  totals: answerSchema(MEASURES),
  series: {
    type: 'array',
    items: answerSchema({
      group: GROUP,
      points: { type: 'array', items: answerSchema({ t: { type: 'string', format: 'date-time' }, ...MEASURES }) },
      totals: answerSchema({ ...MEASURES, confidence: { type: 'array', items: { type: 'number' }, description: 'language ID: confidence histogram' } }),
    }),
  },
});
const PIPELINE = answerSchema({
  consumer_groups: { type: 'array', items: answerSchema({ group: { type: 'string' }, topic: { type: 'string' }, lag: { type: ['integer', 'null'] } }) },
  workers: {
    type: 'array',
    items: answerSchema({
      instance_id: { type: 'string' }, capability: { type: 'string' }, last_heartbeat_ms: { type: 'integer' },
      models: { type: 'array', items: answerSchema({ name: { type: 'string' }, installed: { type: 'boolean' }, loaded: { type: 'boolean' }, queue_depth: { type: 'integer' } }) },
    }),
  },
});

/** ms since the epoch of a `from`/`to` value. @throws ServiceError 400 for a date that does not parse */
function timeOf(v: string, name: string): number {
  const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(t)) throw invalid(`${name} is not a date-time or a number of ms since the epoch`);
  return t;
}

/** Route plugin. */
export const analyticsRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.get('/v1/analytics', {
    ...ACCOUNT_READ,
    schema: {
      tags: ['account'], summary: "Traffic, latency, errors and language mix over time (the caller's key; every key for an admin key)", operationId: 'analytics', security: SECURITY,
      querystring: {
        type: 'object', additionalProperties: false,
        properties: {
          from: TIME, to: TIME, step: { type: 'string', enum: Object.keys(STEPS) },
          group_by: { type: 'string', pattern: `^(${DIMENSIONS.join('|')})(,(${DIMENSIONS.join('|')}))*$`, maxLength: 100 },
          capability: FILTER, model: FILTER, key: FILTER, status: { type: 'string', pattern: '^\\d{3}$' }, code: FILTER, label: FILTER, source: { type: 'string', enum: ['gateway', 'bulk'] },
        },
      },
      response: { 200: ANALYTICS, ...ACCOUNT_ERRORS },
    },
  }, async (req) => {
    if (!deps.analytics) throw new ServiceError('NO_WORKER', 'analytics are not served by this gateway');
    const q = req.query as Partial<Record<'from' | 'to' | 'step' | 'group_by' | Dimension, string>>;
    const to = q.to ? timeOf(q.to, 'to') : Date.now();
    const from = q.from ? timeOf(q.from, 'from') : to - 3_600_000;
    if (from >= to) throw invalid('from must be before to');
    if (to - from > MAX_RANGE_MS) throw invalid(`the range is at most ${MAX_RANGE_MS / 86_400_000} days`);
    const stepMs = q.step ? STEPS[q.step]! : defaultStep(to - from);
    if ((to - from) / stepMs > MAX_POINTS) throw invalid(`at most ${MAX_POINTS} steps: use a larger step or a shorter range`);
    const admin = req.apiKey!.admin === true;
    if (!admin && q.key !== undefined && q.key !== req.apiKey!.id) throw new ServiceError('FORBIDDEN', "only an admin key sees other keys' traffic");
    const groupBy = [...new Set((q.group_by ?? '').split(',').filter(Boolean))] as Dimension[];
    const filters = Object.fromEntries(DIMENSIONS.filter((d) => q[d] !== undefined).map((d) => [d, q[d]!]));
    const buckets = await deps.analytics.buckets(from, to, admin ? q.key : req.apiKey!.id);
    let result;
    try { result = aggregate(buckets, { from, to, stepMs, groupBy, filters }); } catch (err) {
      if (err instanceof RangeError) throw invalid(err.message);
      throw err;
    }
    return {
      scope: admin ? (q.key ?? 'all keys') : req.apiKey!.id,
      from: new Date(from).toISOString(), to: new Date(to).toISOString(), step_ms: stepMs, group_by: groupBy, filters,
      totals: result.totals, series: result.series,
    };
  });

  app.get('/v1/analytics/pipeline', {
    ...ACCOUNT_READ,
    schema: {
      tags: ['account'], summary: 'Consumer lag of the pipeline\'s consumer groups and the live workers with their models (admin keys)', operationId: 'analyticsPipeline', security: SECURITY,
      response: { 200: PIPELINE, ...ACCOUNT_ERRORS },
    },
  }, async (req) => {
    if (req.apiKey!.admin !== true) throw new ServiceError('FORBIDDEN', 'the pipeline view needs an admin key');
    const lags = await consumerLags();
    return {
      consumer_groups: lags.map((l) => ({ group: l.group, topic: l.topic, lag: l.lag })).sort((a, b) => a.group.localeCompare(b.group)),
      workers: deps.liveWorkers.list().map((w) => ({
        instance_id: w.instanceId, capability: w.capability, last_heartbeat_ms: w.lastHeartbeatMs,
        models: w.models.map((m) => ({ name: m.name, installed: m.installed, loaded: m.loaded, queue_depth: m.queueDepth })),
      })),
    };
  });
};
