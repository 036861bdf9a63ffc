/**
 * `npm run keys -- <create --name NAME [--admin] | list | revoke ID_OR_NAME [--all] |
 * grant-admin ID_OR_NAME | revoke-admin ID_OR_NAME>`: manages API keys in DATABASE_URL
 * (PostgreSQL) or DATA_DIR/keys.db. `create` prints the new key once; only its hash is
 * stored. `revoke` takes a key id, or a name that one active key has; `--all` revokes
 * every active key of that name. The admin role (`--admin`, `grant-admin`) lets a key see
 * every key's traffic in GET /v1/analytics.
 */
import { parseArgs } from 'node:util';
import { loadConfig, storeTarget } from '../config.ts';
import { KeyStore } from './store.ts';

const USAGE = 'usage: npm run keys -- create --name NAME [--admin] | list | revoke ID_OR_NAME [--all] | grant-admin ID_OR_NAME | revoke-admin ID_OR_NAME';

const { values, positionals } = parseArgs({ options: { name: { type: 'string' }, json: { type: 'boolean', default: false }, all: { type: 'boolean', default: false }, admin: { type: 'boolean', default: false } }, allowPositionals: true });
const [command, arg] = positionals;
const config = loadConfig();
const store = await KeyStore.open(storeTarget(config, 'keys.db'));
try {
  if (command === 'create') {
    if (!values.name) throw new Error(`create needs --name NAME\n${USAGE}`);
    const { id, key } = await store.create(values.name, values.admin);
    if (values.json) console.log(JSON.stringify({ id, name: values.name, key, admin: values.admin }));
    else console.log(`created ${values.admin ? 'admin ' : ''}key ${id} (${values.name}). It is shown once; store it now:\n${key}`);
  } else if (command === 'list') {
    const keys = await store.list();
    if (values.json) console.log(JSON.stringify(keys));
    else console.table(keys);
  } else if (command === 'revoke') {
    if (!arg) throw new Error(`revoke needs an id or name\n${USAGE}`);
    const n = await store.revoke(arg, { all: values.all });
    console.log(n > 0 ? `revoked ${n} key(s)` : `no active key with id or name ${arg}`);
    if (n === 0) process.exitCode = 1;
  } else if (command === 'grant-admin' || command === 'revoke-admin') {
    if (!arg) throw new Error(`${command} needs an id or name\n${USAGE}`);
    const id = await store.setAdmin(arg, command === 'grant-admin');
    console.log(`${command === 'grant-admin' ? 'granted the admin role to' : 'took the admin role from'} key ${id}`);
  } else {
    throw new Error(USAGE);
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 2;
} finally {
  await store.close();
}
