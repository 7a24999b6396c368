// `npm run admin -- <command>`: operator CLI over the metadata store (data dir or database): organizations, API keys (and operator keys), credits.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../kernel/config.js';
import { LowdbStore } from '../kernel/store/lowdb-store.js';
import { PgStore } from '../kernel/store/postgres/pg-store.js';
import { systemClock } from '../kernel/clock.js';
import { createApiKey, createOperatorKey, createOrganization } from '../kernel/bootstrap.js';
import { OPERATOR_KEYS_ORG_ID, ROLES, type Role } from '../kernel/model.js';
import { createIntegrationClient, createResourceToken } from '../kernel/access-tokens.js';
import { acquireDataDirLock, DataDirLockedError } from '../kernel/store/data-dir-lock.js';
import { migrateEmbeddedToPostgres, TargetNotEmptyError } from '../kernel/store/postgres/migrate-embedded.js';

const USAGE = `Quire admin — works on QUIRE_DATA_DIR (default ./data) while the server is stopped, or on the
PostgreSQL database QUIRE_DATABASE_URL names (servers may be running: every write is a transaction).

  npm run admin -- org list
  npm run admin -- org create --name <name> [--credits <n>] [--plan <plan>]
  npm run admin -- key create --org <orgId> --role owner|admin|member [--name <label>]
  npm run admin -- key list --org <orgId>
  npm run admin -- key revoke --org <orgId> --id <keyId>
  npm run admin -- key create --operator [--name <label>]
      An operator key (docs/operators.md): it switches plugins on and off (/api/v1/dev/operator/...) and belongs
      to no organization. List and revoke operator keys with --operator instead of --org.
  npm run admin -- credits grant --org <orgId> --amount <n> [--note <text>]
  npm run admin -- credits show --org <orgId>
  npm run admin -- client create --name <integration name>
  npm run admin -- client list
  npm run admin -- token create --org <orgId> --client <clientId> --role owner|admin|member [--name <label>]
  npm run admin -- token list --org <orgId>
  npm run admin -- token revoke --org <orgId> --id <tokenId>

  npm run admin -- migrate-to-postgres --from <data dir>
      Copies an embedded data dir (records and file bytes; no server may be running on it) into the empty
      PostgreSQL database QUIRE_DATABASE_URL names, then checks row counts and every file's SHA-256.
`;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  if (!group || group === 'help' || group === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  if (group === 'migrate-to-postgres') return migrateToPostgres([command, ...rest].filter((a): a is string => a !== undefined));
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, credits: { type: 'string' }, plan: { type: 'string' }, org: { type: 'string' }, client: { type: 'string' }, role: { type: 'string' }, id: { type: 'string' }, operator: { type: 'boolean' }, amount: { type: 'string' }, note: { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  // The data dir lock keeps the admin off an embedded store a running server holds; a database needs no such lock.
  let release: () => Promise<void> = async () => undefined;
  if (!config.databaseUrl) {
    try {
      release = await acquireDataDirLock(config.dataDir);
    } catch (err) {
      if (err instanceof DataDirLockedError) fail(err.message);
      throw err;
    }
  }
  const store = config.databaseUrl ? new PgStore(config.databaseUrl, 1) : new LowdbStore(config.dataDir);
  await store.init();
  const out = (v: unknown) => process.stdout.write(JSON.stringify(v, null, 2) + '\n');
  const int = (text: string | undefined, flag: string): number => {
    const n = Number(text);
    if (text === undefined || !Number.isInteger(n)) fail(`--${flag} must be an integer`);
    return n;
  };
  const org = async () => {
    if (!values.org) fail('--org <orgId> is required');
    const o = await store.getOrganization(values.org);
    if (!o) fail(`no organization ${values.org}; list them with: npm run admin -- org list`);
    return o;
  };
  try {
    switch (`${group} ${command}`) {
      case 'org list':
        out(await store.listOrganizations());
        break;
      case 'org create': {
        if (!values.name) fail('--name is required');
        const id = await createOrganization(store, systemClock, values.name, values.credits ? int(values.credits, 'credits') : 0, values.plan ?? 'Team');
        out(await store.getOrganization(id));
        break;
      }
      case 'key create': {
        if (values.operator) {
          if (values.org || values.role) fail('an operator key belongs to no organization and has no role: leave out --org and --role');
          const created = await createOperatorKey(store, systemClock, values.name ?? 'operator key');
          out({ operator: true, id: created.id, name: values.name ?? 'operator key', key: created.key, note: 'The key is shown only now; it is stored hashed. It calls /api/v1/dev/operator/... only.' });
          break;
        }
        const o = await org();
        if (!ROLES.includes(values.role as Role)) fail(`--role must be one of ${ROLES.join(', ')}`);
        const created = await createApiKey(store, systemClock, o.id, values.role as Role, values.name ?? `${values.role} key`);
        out({ orgId: o.id, id: created.id, role: values.role, key: created.key, note: 'The key is shown only now; it is stored hashed.' });
        break;
      }
      case 'key list': {
        if (values.operator) {
          out((await store.listApiKeys(OPERATOR_KEYS_ORG_ID)).map(({ hash: _h, ...k }) => k));
          break;
        }
        const o = await org();
        out((await store.listApiKeys(o.id)).map(({ hash: _h, ...k }) => k));
        break;
      }
      case 'key revoke': {
        if (values.operator) {
          if (!values.id) fail('--id <keyId> is required');
          if (!(await store.revokeApiKey(OPERATOR_KEYS_ORG_ID, values.id, systemClock.now().toISOString()))) fail(`no active operator key ${values.id}`);
          out({ revoked: values.id });
          break;
        }
        const o = await org();
        if (!values.id) fail('--id <keyId> is required');
        if (!(await store.revokeApiKey(o.id, values.id, systemClock.now().toISOString()))) fail(`no active key ${values.id} in organization ${o.id}`);
        out({ revoked: values.id });
        break;
      }
      case 'credits grant': {
        const o = await org();
        const amount = int(values.amount, 'amount');
        if (amount === 0) fail('--amount must not be 0');
        out(await store.addLedgerEntry({ id: randomUUID(), orgId: o.id, amount, kind: 'grant', jobId: null, action: null, note: values.note ?? 'admin grant', createdAt: systemClock.now().toISOString() }));
        break;
      }
      case 'credits show': {
        const o = await org();
        out({ orgId: o.id, balance: o.balance, entries: await store.listLedger(o.id, 20) });
        break;
      }
      case 'client create': {
        if (!values.name) fail('--name is required');
        const c = await createIntegrationClient(store, systemClock, values.name);
        out({ ...c, note: 'The client secret is shown only now; the integration authenticates to POST /api/v1/dev/oauth/token with HTTP Basic client_id:client_secret.' });
        break;
      }
      case 'client list':
        out((await store.listIntegrationClients()).map(({ secretHash: _s, ...c }) => c));
        break;
      case 'token create': {
        const o = await org();
        if (!values.client || !(await store.getIntegrationClient(values.client))) fail('--client <clientId> must name a registered integration client (npm run admin -- client list)');
        if (!ROLES.includes(values.role as Role)) fail(`--role must be one of ${ROLES.join(', ')}`);
        const t = await createResourceToken(store, systemClock, o.id, values.client, values.role as Role, values.name ?? 'resource token');
        out({ orgId: o.id, clientId: values.client, id: t.id, role: values.role, resourceToken: t.token, note: 'Shown only now. Give it to the integration; it exchanges it for mcp_at_ access tokens.' });
        break;
      }
      case 'token list': {
        const o = await org();
        out((await store.listResourceTokens(o.id)).map(({ hash: _h, ...t }) => t));
        break;
      }
      case 'token revoke': {
        const o = await org();
        if (!values.id) fail('--id <tokenId> is required');
        if (!(await store.revokeResourceToken(o.id, values.id, systemClock.now().toISOString()))) fail(`no active resource token ${values.id} in organization ${o.id}`);
        out({ revoked: values.id });
        break;
      }
      default:
        process.stderr.write(USAGE);
        fail(`unknown command "${group} ${command ?? ''}"`);
    }
  } finally {
    await store.close();
    await release();
  }
}

/** Prints the summary as JSON; exits 1 when a count or a checksum does not match. */
async function migrateToPostgres(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } }, strict: true });
  if (!values.from) fail('--from <data dir> is required');
  const url = loadConfig().databaseUrl;
  if (!url) fail('QUIRE_DATABASE_URL must name the PostgreSQL database to copy into');
  if (!['quire.json', 'quire.journal'].some((f) => existsSync(path.join(values.from!, f)))) fail(`${values.from} is not a Quire data dir (it has no quire.json or quire.journal)`);
  let release: () => Promise<void>;
  try {
    release = await acquireDataDirLock(values.from);
  } catch (err) {
    if (err instanceof DataDirLockedError) fail(err.message);
    throw err;
  }
  let refused: string | undefined;
  try {
    const summary = await migrateEmbeddedToPostgres(values.from, url);
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    if (!summary.ok) {
      process.stderr.write('admin: the copy does not match the data dir (see "tables" and "blobs" above)\n');
      process.exitCode = 1;
    }
  } catch (err) {
    if (!(err instanceof TargetNotEmptyError)) throw err;
    refused = err.message;
  } finally {
    await release();
  }
  if (refused) fail(refused);
}

void main().catch((err) => fail((err as Error).message));
