/**
 * Component options (issue 12, item 6): settings validated against the component's own
 * schema, defaults applied, errors naming the component, the setting and the rule.
 */
import { describe, expect, it } from 'vitest';
import { OptionsError, envProperty, resolveSettings, type SettingsSchema } from '../../services/lib/options.ts';

const SCHEMA: SettingsSchema = {
  type: 'object', additionalProperties: false,
  properties: { waitMs: { type: 'integer', default: 5, minimum: 0 }, mode: { type: 'string', default: 'a', enum: ['a', 'b'] } },
};

describe('resolveSettings', () => {
  it('applies defaults without changing its input', () => {
    const input = { waitMs: 7 };
    expect(resolveSettings('thing', SCHEMA, input)).toEqual({ waitMs: 7, mode: 'a' });
    expect(input).toEqual({ waitMs: 7 });
    expect(resolveSettings('thing', SCHEMA, { waitMs: undefined })).toEqual({ waitMs: 5, mode: 'a' });
  });
  it('names the component, the setting and the rule it breaks', () => {
    expect(() => resolveSettings('thing', SCHEMA, { waitMs: -1 })).toThrow(new OptionsError('thing', 'waitMs must be >= 0'));
    expect(() => resolveSettings('thing', SCHEMA, { mode: 'c' })).toThrow(/thing options: mode must be equal to one of the allowed values \(a, b\)/);
    expect(() => resolveSettings('thing', SCHEMA, { wait_ms: 1 })).toThrow(/thing options: unknown setting "wait_ms"/);
  });
});

describe('envProperty', () => {
  it('gives an environment variable the setting\'s type, default and bounds', () => {
    expect(envProperty(SCHEMA, 'waitMs')).toEqual({ type: 'integer', default: 5, minimum: 0 });
    expect(() => envProperty(SCHEMA, 'nope')).toThrow(/no setting "nope"/);
  });
});
