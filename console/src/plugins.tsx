// Operators: every plugin with its state and why, switched off or on at runtime with a reason (the operator API, docs/operators.md).
import { useEffect, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { Head, when } from './parts.js';

interface OperatorPlugin {
  id: string;
  state: 'enabled' | 'disabled' | 'unavailable';
  reason?: string | null;
  description?: string;
  configDisabled?: boolean;
}

interface AuditEntry {
  id: string;
  action: 'plugin.disable' | 'plugin.enable';
  pluginId: string;
  reason: string | null;
  keyName: string;
  createdAt: string;
}

/** The newest switches first (GET /operator/audit): who switched what, when and why. */
function AuditLog({ entries }: { entries: AuditEntry[] }) {
  if (!entries.length) return <p class="note">No plugin has been switched yet.</p>;
  return (
    <table id="audit">
      <Head columns={['When', 'Plugin', 'Switched', 'By', 'Reason']} />
      <tbody>
        {entries.map((e) => (
          <tr>
            <td>{when(e.createdAt)}</td>
            <td>
              <code>{e.pluginId}</code>
            </td>
            <td>{e.action === 'plugin.disable' ? 'off' : 'on'}</td>
            <td>{e.keyName}</td>
            <td>{e.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Plugins({ apiKey }: { apiKey: string }) {
  const [audit, setAudit] = useState<AuditEntry[]>([]);
  const [plugins, setPlugins] = useState<OperatorPlugin[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);

  const load = async () => {
    const r = await call(apiKey, 'GET', '/operator/plugins');
    if (r.status === 200) setPlugins(r.body.items);
    const log = await call(apiKey, 'GET', '/operator/audit?limit=20');
    if (log.status === 200) setAudit(log.body.items);
    if (r.status !== 200) setError(r.status === 403 ? 'This key is not an operator key: only operator keys see and switch plugins (docs/operators.md).' : problemText(r));
  };
  useEffect(() => void load(), [apiKey]);

  const flip = async (p: OperatorPlugin) => {
    setBusy(p.id);
    setError(null);
    const action = p.state === 'enabled' ? 'disable' : 'enable';
    const reason = reasons[p.id]?.trim();
    const r = await call(apiKey, 'POST', `/operator/plugins/${encodeURIComponent(p.id)}/${action}`, reason ? { reason } : {});
    setBusy(null);
    if (r.status === 200) {
      setPlugins((all) => all && all.map((q) => (q.id === p.id ? r.body : q)));
      setReasons((all) => ({ ...all, [p.id]: '' }));
      await load();
    } else setError(`${p.id}: ${problemText(r)}`);
  };

  return (
    <section class="plugins">
      <h1>Plugins</h1>
      {error && (
        <p id="plugins-error" class="error" role="alert">
          {error}
        </p>
      )}
      {plugins && (
        <table>
          <Head columns={['Plugin', 'State', 'Why', 'Switch']} />
          <tbody>
            {plugins.map((p) => (
              <tr id={`plugin-${p.id}`} data-state={p.state}>
                <th scope="row">
                  <code>{p.id}</code>
                  {p.description && <div class="note">{p.description}</div>}
                </th>
                <td class={`state ${p.state}`}>{p.state}</td>
                <td class="reason">{p.reason ?? ''}</td>
                <td class="switch">
                  {p.state !== 'unavailable' && !p.configDisabled && (
                    <>
                      <input
                        class="reason-input"
                        aria-label={`Reason to ${p.state === 'enabled' ? 'disable' : 'enable'} ${p.id}`}
                        placeholder="Reason (audited)"
                        value={reasons[p.id] ?? ''}
                        onInput={(e) => setReasons((all) => ({ ...all, [p.id]: e.currentTarget.value }))}
                      />
                      <button type="button" class="flip" disabled={busy === p.id} onClick={() => void flip(p)}>
                        {p.state === 'enabled' ? 'Disable' : 'Enable'}
                      </button>
                    </>
                  )}
                  {p.configDisabled && <span class="note">disabled in the config file</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Audit log</h2>
      <AuditLog entries={audit} />
    </section>
  );
}
