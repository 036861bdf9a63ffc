/**
 * Options of a gateway (services/gateway/index.ts, app.ts): what it is given to work
 * with, and its settings, validated with their defaults (services/lib/options.ts). The
 * composition root maps the environment onto the settings (services/compose.ts; README,
 * "Configuration", names the variables; docs/security.md gives the reasons of the limits).
 */
import type { Logger } from 'pino';
import type { Ledger } from '../billing/ledger.ts';
import type { AnalyticsStore } from '../analytics/store.ts';
import { CAPABILITIES } from '../capabilities/index.ts';
import type { EventCodec } from '../events/codec.ts';
import type { KeyStore } from '../keys/store.ts';
import { TOPIC_PREFIX, resolveSettings, type SettingsSchema } from '../lib/options.ts';
import type { Transport } from '../transport/types.ts';

/** Settings of a gateway. Times in ms, sizes in bytes. */
export interface GatewaySettings {
  /** first part of its topic and consumer-group names (TOPIC_PREFIX) */
  topicPrefix: string;
  /** a model request's deadline, counted from its arrival; 504 after it (REQUEST_TIMEOUT_MS) */
  requestTimeoutMs: number;
  /** from SIGTERM to exit; requests in flight get half of it to be answered (SHUTDOWN_GRACE_MS) */
  shutdownGraceMs: number;
  /** the workers' heartbeat period: a worker unheard for 5 periods (at least 10 s) serves nothing (WORKER_HEARTBEAT_MS) */
  workerHeartbeatMs: number;
  /** longest time to receive a whole request, headers and body; 408 after it (BODY_TIMEOUT_MS) */
  bodyTimeoutMs: number;
  /** Fastify `trustProxy`: '' (the socket's address is the client's), `true`, a hop count, or comma-separated proxy addresses/CIDRs (TRUST_PROXY) */
  trustProxy: string;
  /** one log line per HTTP request and response (LOG_REQUESTS) */
  logRequests: boolean;
  /** write outcome events of its answers for analytics (OUTCOME_EVENTS) */
  outcomeEvents: boolean;
  /** billable units one API key may ask for per window, over every route together; 429 beyond (RATE_LIMIT_MAX) */
  rateLimitMax: number;
  /** the rate-limit window (RATE_LIMIT_WINDOW_MS) */
  rateLimitWindowMs: number;
  /** requests per window from one client address without a valid key (RATE_LIMIT_ANON_MAX) */
  rateLimitAnonMax: number;
  /** reads of a key's own account (usage, analytics) per window, counted apart from its billable units (RATE_LIMIT_READ_MAX) */
  rateLimitReadMax: number;
  /** request bodies (declared sizes) read and held at once; 503 beyond (MAX_INFLIGHT_BODY_BYTES) */
  maxInflightBodyBytes: number;
  /** items in flight per capability over the capability modules' defaults; 503 beyond (MAX_INFLIGHT_ITEMS) */
  maxInflightItems: Partial<Record<string, number>>;
  /** queue wait tolerated per capability, ms, over the capability modules' defaults; the in-flight limit shrinks while items wait longer (QUEUE_TARGET_MS) */
  queueTargetMs: Partial<Record<string, number>>;
  /** bearer token of GET /metrics; '' = /metrics answers 403 (METRICS_TOKEN) */
  metricsToken: string;
  /** threads that check and decode extraction images (IMAGE_THREADS) */
  imageThreads: number;
}

/** JSON Schema of {@link GatewaySettings}: types, bounds and defaults. */
export const GATEWAY_SETTINGS_SCHEMA: SettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    topicPrefix: TOPIC_PREFIX,
    requestTimeoutMs: { type: 'integer', default: 30_000, minimum: 1 },
    shutdownGraceMs: { type: 'integer', default: 10_000, minimum: 100 },
    workerHeartbeatMs: { type: 'integer', default: 2000, minimum: 10 },
    bodyTimeoutMs: { type: 'integer', default: 30_000, minimum: 100 },
    trustProxy: { type: 'string', default: '' },
    logRequests: { type: 'boolean', default: true },
    outcomeEvents: { type: 'boolean', default: true },
    rateLimitMax: { type: 'integer', default: 60_000, minimum: 1 },
    rateLimitWindowMs: { type: 'integer', default: 60_000, minimum: 1000 },
    rateLimitAnonMax: { type: 'integer', default: 600, minimum: 1 },
    rateLimitReadMax: { type: 'integer', default: 600, minimum: 1 },
    maxInflightBodyBytes: { type: 'integer', default: 268_435_456, minimum: 1_048_576 },
    maxInflightItems: {
      type: 'object', default: {}, propertyNames: { enum: [...CAPABILITIES] }, additionalProperties: { type: 'integer', minimum: 1 },
    },
    queueTargetMs: {
      type: 'object', default: {}, propertyNames: { enum: [...CAPABILITIES] }, additionalProperties: { type: 'integer', minimum: 1 },
    },
    metricsToken: { type: 'string', default: '' },
    imageThreads: { type: 'integer', default: 2, minimum: 1, maximum: 64 },
  },
};

/**
 * A gateway's settings: validated, defaults applied.
 * @throws OptionsError naming the setting that breaks its schema
 */
export const gatewaySettings = (input: Partial<GatewaySettings> = {}): GatewaySettings => resolveSettings('gateway', GATEWAY_SETTINGS_SCHEMA, input);

/** What a gateway is built with. */
export interface GatewayOptions {
  transport: Transport;
  /** transport name for /health */
  transportName: string;
  codec: EventCodec;
  keys: KeyStore;
  /** usage report source for GET /v1/usage; absent when billing runs elsewhere without a shared ledger */
  ledger?: Ledger;
  /** source of GET /v1/analytics (issue 16); absent: the route answers 503 */
  analytics?: AnalyticsStore;
  logger: Logger;
  /** its settings; each one left out takes its default */
  settings?: Partial<GatewaySettings>;
  /** unique per process; default a random UUID */
  instanceId?: string;
  /** models the process is still preloading: /ready answers 503 until none is (default none) */
  loadingModels?: () => string[];
}
