/**
 * Prometheus metrics (prom-client) of this process, served by the gateway at
 * GET /metrics. Durations in seconds (Prometheus base unit).
 */
import client from 'prom-client';

/** The registry of this process. */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

/** HTTP requests by route pattern, method and status. */
export const httpRequests = new client.Counter({
  name: 'lmstream_http_requests_total', help: 'HTTP requests by route and status',
  labelNames: ['route', 'method', 'status'] as const, registers: [registry],
});

/** HTTP latency by route. */
export const httpLatency = new client.Histogram({
  name: 'lmstream_http_request_duration_seconds', help: 'HTTP request latency',
  labelNames: ['route', 'method'] as const, registers: [registry],
  buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30],
});

/** Items per micro-batch, by model. */
export const microBatchSize = new client.Histogram({
  name: 'lmstream_microbatch_size', help: 'items per micro-batch', labelNames: ['model'] as const,
  registers: [registry], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
});

/** Items queued per model (sampled on scrape). */
export const queueDepth = new client.Gauge({
  name: 'lmstream_queue_depth', help: 'items waiting in the micro-batch queue', labelNames: ['model'] as const, registers: [registry],
});

/** Requests waiting for a reply in this gateway. */
export const pendingReplies = new client.Gauge({
  name: 'lmstream_pending_replies', help: 'items waiting for a result', registers: [registry],
});

/** Replies that came after their request was answered or timed out. */
export const lateReplies = new client.Counter({
  name: 'lmstream_late_replies_total', help: 'results that arrived after the deadline or twice', registers: [registry],
});

/** Items dropped by workers because their deadline passed. */
export const expiredItems = new client.Counter({
  name: 'lmstream_expired_items_total', help: 'items not run because their deadline passed', labelNames: ['model'] as const, registers: [registry],
});

/** Usage events written to the ledger, and replays ignored. */
export const ledgerWrites = new client.Counter({
  name: 'lmstream_ledger_events_total', help: 'usage events seen by billing', labelNames: ['outcome'] as const, registers: [registry],
});
