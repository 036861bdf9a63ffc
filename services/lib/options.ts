/**
 * Options of a component (after @platformatic/kafka): each component declares the
 * settings it reads as a JSON Schema with their defaults and bounds in its `options.ts`,
 * and validates what it is given with ajv when it is built. The composition root
 * (services/compose.ts) maps the configuration's environment variables onto these
 * settings; services/config.ts takes each variable's default and bounds from the
 * component's schema ({@link envProperty}), so they are written once.
 */
import AjvModule, { type ErrorObject } from 'ajv';

/** JSON Schema of one setting (a subset of draft-07 that env-schema also reads). */
export interface SettingSchema {
  type: 'string' | 'integer' | 'boolean' | 'object' | 'array';
  default: unknown;
  minimum?: number;
  maximum?: number;
  enum?: readonly unknown[];
  pattern?: string;
  [k: string]: unknown;
}

/** JSON Schema of a component's settings: one property per setting, each with a default. */
export interface SettingsSchema { type: 'object'; properties: Record<string, SettingSchema>; additionalProperties: false; }

/** A topic prefix: the first part of every topic and consumer-group name (docs/events.md). */
export const TOPIC_PREFIX: SettingSchema = { type: 'string', default: 'lmstream', pattern: '^[A-Za-z0-9._-]+$' };
/** Partitions of the request topics created at start-up. */
export const TOPIC_PARTITIONS: SettingSchema = { type: 'integer', default: 4, minimum: 1, maximum: 1024 };

/** Settings of a component that break its schema. */
export class OptionsError extends Error {
  constructor(readonly component: string, message: string) {
    super(`${component} options: ${message}`);
    this.name = 'OptionsError';
  }
}

const Ajv = AjvModule.default ?? AjvModule;
const ajv = new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false, strict: false });
const compiled = new WeakMap<SettingsSchema, ReturnType<typeof ajv.compile>>();

/**
 * A component's settings from what it was given: validated, defaults applied, the input
 * left unchanged.
 * @param component its name, for the message
 * @throws OptionsError naming the setting and the rule it breaks, or an unknown setting
 */
export function resolveSettings<T>(component: string, schema: SettingsSchema, input: object = {}): T {
  let validate = compiled.get(schema);
  if (!validate) { validate = ajv.compile(schema); compiled.set(schema, validate); }
  const out = structuredClone(Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)));
  if (!validate(out)) {
    const e = validate.errors![0]! as ErrorObject & { propertyName?: string };
    const params = e.params as { additionalProperty?: string; allowedValues?: unknown[] };
    if (params.additionalProperty !== undefined && !e.instancePath) throw new OptionsError(component, `unknown setting "${params.additionalProperty}"`);
    const field = e.instancePath.slice(1).replace(/\//g, '.') || '(root)';
    const key = e.propertyName !== undefined ? ` key "${e.propertyName}"` : '';
    const allowed = params.allowedValues ? ` (${params.allowedValues.join(', ')})` : '';
    throw new OptionsError(component, `${field}${key} ${e.message}${allowed}`);
  }
  return out as T;
}

/**
 * The environment variable of a setting, for services/config.ts: its type, default and
 * bounds as the component declares them.
 * @throws Error when the schema has no such setting (a programming error)
 */
export function envProperty(schema: SettingsSchema, setting: string, env: { default?: unknown } = {}): SettingSchema {
  const p = schema.properties[setting];
  if (!p) throw new Error(`no setting "${setting}" in the schema`);
  return { ...p, ...env };
}
