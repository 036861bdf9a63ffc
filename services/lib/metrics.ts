/**
 * Prometheus metrics (prom-client) of this process, served by the gateway at
 * GET /metrics. Durations in seconds (Prometheus base unit).
 */
import client from 'prom-client';

/** The Prometheus registry of this process (served at GET /metrics). */
export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry });
// prom-client's totals of active handles, requests and resources are gauges named like
// counters, which `promtool check metrics` refuses ("non-counter metrics should not have
// _total suffix"); the same figures by type stay (nodejs_active_handles{type}, ...)
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) metricsRegistry.removeSingleMetric(name);

/** HTTP requests by route pattern, method and status. */
export const httpRequests = new client.Counter({
  name: 'lmstream_http_requests_total', help: 'HTTP requests by route and status',
  labelNames: ['route', 'method', 'status'] as const, registers: [metricsRegistry],
});

/** HTTP latency by route. */
export const httpLatency = new client.Histogram({
  name: 'lmstream_http_request_duration_seconds', help: 'HTTP request latency',
  labelNames: ['route', 'method'] as const, registers: [metricsRegistry],
  buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30],
});

/** Items per micro-batch, by model. */
export const microBatchSize = new client.Histogram({
  name: 'lmstream_microbatch_size', help: 'items per micro-batch', labelNames: ['model'] as const,
  registers: [metricsRegistry], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
});

/** Items queued per model (sampled on scrape). */
export const queueDepth = new client.Gauge({
  name: 'lmstream_queue_depth', help: 'items waiting in the micro-batch queue', labelNames: ['model'] as const, registers: [metricsRegistry],
});

/** Requests waiting for a reply in this gateway. */
export const pendingReplies = new client.Gauge({
  name: 'lmstream_pending_replies', help: 'items waiting for a result', registers: [metricsRegistry],
});

/** Replies that came after their request was answered or timed out. */
export const lateReplies = new client.Counter({
  name: 'lmstream_late_replies_total', help: 'results that arrived after the deadline or twice', registers: [metricsRegistry],
});

/** Items dropped by workers because their deadline passed. */
export const expiredItems = new client.Counter({
  name: 'lmstream_expired_items_total', help: 'items not run because their deadline passed', labelNames: ['model'] as const, registers: [metricsRegistry],
});

/** Usage events written to the ledger, and replays ignored. */
export const ledgerWrites = new client.Counter({
  name: 'lmstream_ledger_events_total', help: 'usage events seen by billing', labelNames: ['outcome'] as const, registers: [metricsRegistry],
});

/** What a gateway holds now: items per capability and body bytes (read when /metrics is scraped). */
export interface GatewayLoad { items: Record<string, number>; limits: Record<string, number>; bodyBytes: number; }
let gatewayLoad: (() => GatewayLoad) | undefined;

/** Names where the gateway's load gauges read from (the gateway of this process). */
export function reportGatewayLoad(source: () => GatewayLoad): void { gatewayLoad = source; }

/** Items a gateway has admitted and not answered, by capability (services/gateway/load-shedding.ts); set on scrape, not per request. */
export const inflightItems = new client.Gauge({
  name: 'lmstream_gateway_inflight_items', help: 'items admitted by this gateway and not yet answered', labelNames: ['capability'] as const, registers: [metricsRegistry],
  collect() { const load = gatewayLoad?.(); if (load) for (const [capability, n] of Object.entries(load.items)) this.set({ capability }, n); },
});

/** A gateway's in-flight limit now, by capability (adaptive, at most its ceiling: services/gateway/load-shedding.ts); set on scrape. */
export const inflightLimit = new client.Gauge({
  name: 'lmstream_gateway_inflight_limit_items', help: 'items this gateway admits now per capability (adaptive by queue wait, at most MAX_INFLIGHT_ITEMS)', labelNames: ['capability'] as const, registers: [metricsRegistry],
  collect() { const load = gatewayLoad?.(); if (load) for (const [capability, n] of Object.entries(load.limits)) this.set({ capability }, n); },
});

/** Queue wait of request events as a gateway measures it (services/gateway/load-shedding.ts), seconds. */
export const queueWait = new client.Histogram({
  name: 'lmstream_gateway_queue_wait_seconds', help: 'time from writing a request event to its first result, less the time its micro-batch ran',
  labelNames: ['capability'] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [metricsRegistry],
});

/** Bytes of request bodies a gateway holds (services/gateway/body-budget.ts); set on scrape. */
export const inflightBodyBytes = new client.Gauge({
  name: 'lmstream_gateway_inflight_body_bytes', help: 'declared bytes of request bodies being read or held', registers: [metricsRegistry],
  collect() { const load = gatewayLoad?.(); if (load) this.set(load.bodyBytes); },
});

/** Events a producer could not encode with their schema, set aside or dropped alone (services/events/encodable.ts). */
export const unencodableEvents = new client.Counter({
  name: 'lmstream_unencodable_events_total', help: 'events their schema could not encode, left out of their message (usage: to the dead-letter topic; others: dropped)', labelNames: ['schema'] as const, registers: [metricsRegistry],
});

/** Requests refused 503 by load shedding, by reason (a capability, or body-bytes). */
export const shedRequests = new client.Counter({
  name: 'lmstream_shed_requests_total', help: 'requests refused 503 because this gateway was at its in-flight limit (adaptive by queue wait) or body budget', labelNames: ['reason'] as const, registers: [metricsRegistry],
});

/** Items workers skipped because the client that asked for them went away. */
export const cancelledItems = new client.Counter({
  name: 'lmstream_cancelled_items_total', help: 'items not run because their request was cancelled', labelNames: ['model'] as const, registers: [metricsRegistry],
});

/** Items a backend stopped while running them, because their request was cancelled or their deadline passed. */
export const stoppedItems = new client.Counter({
  name: 'lmstream_stopped_items_total', help: 'items stopped while running: their request was cancelled or their deadline passed', labelNames: ['model', 'reason'] as const, registers: [metricsRegistry],
});

/** Usage events of delivered answers a gateway wrote to the usage topic, and those it could not write. */
export const outcomeEvents = new client.Counter({
  name: 'lmstream_outcome_events_total', help: 'outcome events of answered requests, by outcome of their write', labelNames: ['outcome'] as const, registers: [metricsRegistry],
});

/** Usage events of delivered answers a gateway wrote to the usage topic, and those it could not write. */
export const deliveredUsage = new client.Counter({
  name: 'lmstream_delivered_usage_events_total', help: 'usage events of delivered answers, by outcome of their write', labelNames: ['outcome'] as const, registers: [metricsRegistry],
});
