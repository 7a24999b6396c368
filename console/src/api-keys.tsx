// API keys: the organization's keys (owner and admin keys only), a new key shown once with a copy button, and revoking
// one after a confirmation (POST/GET /api-keys, DELETE /api-keys/{id}).
import { useEffect, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { Confirmed, ErrorLine, Head, ShownOnce, when } from './parts.js';

interface ApiKey {
  id: string;
  name: string;
  role: 'owner' | 'admin' | 'member';
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

const ROLES = ['member', 'admin', 'owner'] as const;
export const ADMINS_ONLY = 'Only owner and admin keys manage this: the key you signed in with is a member key. Sign in with an owner or admin key.';

export function ApiKeys({ apiKey }: { apiKey: string }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [forbidden, setForbidden] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<ApiKey['role']>('member');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    const r = await call(apiKey, 'GET', '/api-keys');
    if (r.status === 200) setKeys(r.body.items);
    else if (r.status === 403) setForbidden(true);
    else setError(problemText(r));
  };
  useEffect(() => void load(), [apiKey]);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const r = await call(apiKey, 'POST', '/api-keys', { name: name.trim(), role });
    setBusy(false);
    if (r.status !== 201) return setError(problemText(r));
    setCreated({ name: r.body.name, key: r.body.key });
    setName('');
    await load();
  };

  const revoke = async (k: ApiKey) => {
    setBusy(true);
    setError(null);
    const r = await call(apiKey, 'DELETE', `/api-keys/${encodeURIComponent(k.id)}`);
    setBusy(false);
    setConfirming(null);
    if (r.status !== 204) return setError(`${k.name}: ${problemText(r)}`);
    await load();
  };

  if (forbidden) {
    return (
      <section class="page keys">
        <h1>API keys</h1>
        <p id="keys-forbidden" class="notice" role="status">
          {ADMINS_ONLY}
        </p>
      </section>
    );
  }

  return (
    <section class="page keys">
      <h1>API keys</h1>
      <ErrorLine id="keys-error" text={error} />
      {created && <ShownOnce id="new-key" label={`The new key "${created.name}"`} secret={created.key} why="Quire keeps only a hash of it and cannot show it again." onDone={() => setCreated(null)} />}
      <form class="inline-form" onSubmit={create}>
        <h2>Create a key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="CI pipeline" />
        <label for="key-role">Role</label>
        <select id="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value as ApiKey['role'])}>
          {ROLES.map((r) => (
            <option value={r}>{r}</option>
          ))}
        </select>
        <button id="create-key" type="submit" disabled={busy}>
          Create key
        </button>
      </form>
      {keys && (
        <table id="keys">
          <Head columns={['Name', 'Role', 'Starts with', 'Created', 'State']} />
          <tbody>
            {keys.map((k) => (
              <tr id={`key-${k.id}`} data-revoked={k.revokedAt ? 'true' : 'false'}>
                <th scope="row">{k.name}</th>
                <td>{k.role}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{when(k.createdAt)}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${when(k.revokedAt)}`
                  ) : (
                    <Confirmed open={confirming === k.id} onOpen={(o) => setConfirming(o ? k.id : null)} label={k.name} verb="Revoke" question={`Revoke "${k.name}"? Every request with it is refused at once.`} cls="revoke" busy={busy} onConfirm={() => void revoke(k)} />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
