/**
 * `npm run usage -- [--key ID] [--from ISO] [--to ISO] [--json]`: usage per key,
 * capability, model and billing unit from the ledger in DATABASE_URL (PostgreSQL) or
 * DATA_DIR/ledger.db. Capabilities are named as the API names them (`language-id`, not the
 * events' Avro symbol `language_id`); each text of a bulk job counts as a request.
 */
import { parseArgs } from 'node:util';
import { loadConfig, storeTarget } from '../config.ts';
import { capabilityOfSymbol } from '../capabilities/index.ts';
import { Ledger } from './ledger.ts';

const { values } = parseArgs({ options: { key: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean', default: false } } });
const parse = (s: string | undefined, name: string): number | undefined => {
  if (s === undefined) return undefined;
  const t = Date.parse(s);
  if (Number.isNaN(t)) { console.error(`--${name} must be an ISO 8601 date or date-time`); process.exit(2); }
  return t;
};
const config = loadConfig();
const ledger = await Ledger.open(storeTarget(config, 'ledger.db'));
const rows = (await ledger.report({ keyId: values.key, from: parse(values.from, 'from'), to: parse(values.to, 'to') }))
  .map((r) => ({ ...r, capability: capabilityOfSymbol(r.capability) }));
if (values.json) console.log(JSON.stringify(rows));
else if (rows.length === 0) console.log('no usage in that range');
else console.table(rows);
await ledger.close();
