// A started server with two organizations and a client for each role: the owner, an admin and a member of "Main", and the owner of "Other".
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { admin, cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from './quire-server.js';
import { ApiClient } from './api-client.js';

export interface Tenants {
  server: RunningServer;
  owner: ApiClient;
  admin: ApiClient;
  member: ApiClient;
  /** The owner of another organization. */
  other: ApiClient;
}

/** A key of `role` for the owner's organization, made through POST /api-keys. */
async function keyFor(owner: ApiClient, role: 'admin' | 'member'): Promise<ApiClient> {
  const r = await owner.post('/api/v1/dev/api-keys', { name: `${role} key`, role });
  assert.is(r.status, 201, r.bytes.toString());
  return owner.withKey(r.body.key);
}

/**
 * Before the suite's tests: both organizations are made by the admin CLI before the first start ("Main" first, so the
 * bootstrap owner key joins it); the admin and member keys through the API. After them: stopped and its data dir removed.
 */
export function useTenants(suite: Test, ready: (tenants: Tenants) => void): void {
  const dataDir = tempDir();
  let server: RunningServer | undefined;
  suite.before(async () => {
    const main = await admin(dataDir, ['org', 'create', '--name', 'Main', '--credits', '1000']);
    assert.is(main.code, 0, main.stderr);
    const other = await admin(dataDir, ['org', 'create', '--name', 'Other', '--credits', '100']);
    assert.is(other.code, 0, other.stderr);
    const otherKey = await admin(dataDir, ['key', 'create', '--org', other.json.id, '--role', 'owner']);
    assert.is(otherKey.code, 0, otherKey.stderr);
    server = await startServer({ dataDir });
    const owner = new ApiClient(server.baseUrl, OWNER_KEY);
    ready({ server, owner, admin: await keyFor(owner, 'admin'), member: await keyFor(owner, 'member'), other: owner.withKey(otherKey.json.key) });
  });
  suite.after(async () => {
    await server?.stop();
    cleanup(dataDir);
  });
}
