// Webhooks: the organization's signed webhook endpoints (owner and admin keys only) — register one (its secret shown
// once), disable, enable or delete it, send a ping, and read each endpoint's delivery log with a redeliver button.
import { useEffect, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { Confirmed, ErrorLine, Head, ShownOnce, when } from './parts.js';
import { ADMINS_ONLY } from './api-keys.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
}

interface Attempt {
  attempt: number;
  at: string;
  status: number | null;
  durationMs: number;
  error: string | null;
}

interface Delivery {
  id: string;
  eventId: string;
  event: string;
  subject: { kind: string; id: string };
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  attempts: number;
  nextAttemptAt: string | null;
  attemptsLog: Attempt[];
  redeliveryOf: string | null;
  createdAt: string;
}

const EVENTS = ['job.completed', 'job.failed'];
const base = '/webhook-endpoints';

function lastAttempt(d: Delivery): string {
  const a = d.attemptsLog[d.attemptsLog.length - 1];
  if (!a) return d.nextAttemptAt ? `first attempt ${when(d.nextAttemptAt)}` : '';
  return `${a.status ?? 'no answer'}${a.error ? ` (${a.error})` : ''}, ${a.durationMs} ms`;
}

/** One endpoint's deliveries, newest first, read again each second while one is still PENDING. */
function DeliveryLog({ apiKey, endpoint }: { apiKey: string; endpoint: Endpoint }) {
  const [items, setItems] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const load = async () => {
    const r = await call(apiKey, 'GET', `${base}/${endpoint.id}/deliveries?limit=50`);
    if (r.status === 200) setItems(r.body.items);
    else setError(problemText(r));
  };
  useEffect(() => void load(), [endpoint.id]);
  useEffect(() => {
    if (!items?.some((d) => d.status === 'PENDING')) return;
    const timer = setTimeout(() => void load(), 1000);
    return () => clearTimeout(timer);
  }, [items]);

  const redeliver = async (d: Delivery) => {
    const r = await call(apiKey, 'POST', `${base}/${endpoint.id}/deliveries/${d.id}/redeliver`);
    if (r.status !== 202) return setError(problemText(r));
    setNote(`Event ${d.eventId} queued again.`);
    await load();
  };

  return (
    <section class="deliveries" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        Deliveries to <code>{endpoint.url}</code>
      </h2>
      <ErrorLine id="deliveries-error" text={error} />
      <p class="note" aria-live="polite">
        {note}
      </p>
      {items && !items.length && <p class="note">Nothing delivered yet: events of finished jobs appear here (kept 30 days).</p>}
      {items && items.length > 0 && (
        <table id="deliveries">
          <Head columns={['Created', 'Event', 'Job', 'Status', 'Attempts', 'Last answer', 'Redeliver']} />
          <tbody>
            {items.map((d) => (
              <tr id={`delivery-${d.id}`} data-status={d.status} data-redelivery-of={d.redeliveryOf ?? ''}>
                <td>{when(d.createdAt)}</td>
                <td>
                  <code>{d.event}</code>
                  {d.redeliveryOf && <div class="note">redelivery</div>}
                </td>
                <td>{d.subject.kind === 'ping' ? 'ping' : <code>{d.subject.id}</code>}</td>
                <td class={`status ${d.status.toLowerCase()}`}>{d.status}</td>
                <td class="number">{d.attempts}</td>
                <td>{lastAttempt(d)}</td>
                <td>
                  <button type="button" class="redeliver" aria-label={`Redeliver ${d.event} of ${when(d.createdAt)}`} onClick={() => void redeliver(d)}>
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function Webhooks({ apiKey }: { apiKey: string }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [forbidden, setForbidden] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS);
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Bumped by a ping: the open delivery log is read afresh.
  const [pings, setPings] = useState(0);

  const load = async () => {
    const r = await call(apiKey, 'GET', `${base}?limit=200`);
    if (r.status === 200) setEndpoints(r.body.items);
    else if (r.status === 403) setForbidden(true);
    else setError(problemText(r));
  };
  useEffect(() => void load(), [apiKey]);

  /** Runs one change; on success reads the list again. */
  const act = async (what: string, method: string, path: string, body?: unknown) => {
    setBusy(true);
    setError(null);
    const r = await call(apiKey, method, path, body);
    setBusy(false);
    if (r.status >= 300) {
      setError(`${what}: ${problemText(r)}`);
      return null;
    }
    await load();
    return r;
  };

  const create = async (e: Event) => {
    e.preventDefault();
    // Both events ticked is the same as none: the endpoint gets every event.
    const r = await act('Register', 'POST', base, { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) });
    if (!r) return;
    setCreated({ url: r.body.url, secret: r.body.secret });
    setUrl('');
    setDescription('');
  };

  if (forbidden) {
    return (
      <section class="page webhooks">
        <h1>Webhooks</h1>
        <p id="webhooks-forbidden" class="notice" role="status">
          {ADMINS_ONLY}
        </p>
      </section>
    );
  }

  const shown = endpoints?.find((ep) => ep.id === open);
  return (
    <section class="page webhooks">
      <h1>Webhooks</h1>
      <ErrorLine id="webhooks-error" text={error} />
      {created && <ShownOnce id="new-secret" label={`Signing secret of ${created.url}`} secret={created.secret} why="Quire never shows it again; rotate the secret through the API to get a new one." onDone={() => setCreated(null)} />}
      <form class="inline-form" onSubmit={create}>
        <h2>Register an endpoint</h2>
        <label for="hook-url">URL</label>
        <input id="hook-url" type="url" required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/quire-events" />
        <fieldset class="events">
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label>
              <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents((all) => (e.currentTarget.checked ? [...all, ev] : all.filter((x) => x !== ev)))} /> {ev}
            </label>
          ))}
        </fieldset>
        <label for="hook-description">Description</label>
        <input id="hook-description" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <button id="create-hook" type="submit" disabled={busy}>
          Register
        </button>
      </form>
      {endpoints && !endpoints.length && <p class="note">No endpoints yet.</p>}
      {endpoints && endpoints.length > 0 && (
        <table id="endpoints">
          <Head columns={['URL', 'Events', 'State', 'Actions']} />
          <tbody>
            {endpoints.map((ep) => (
              <tr id={`endpoint-${ep.id}`} data-enabled={String(ep.enabled)}>
                <th scope="row">
                  <code>{ep.url}</code>
                  {ep.description && <div class="note">{ep.description}</div>}
                </th>
                <td>{ep.events.length ? ep.events.join(', ') : 'every event'}</td>
                <td>
                  <span class={`status ${ep.enabled ? 'enabled' : 'disabled'}`}>{ep.enabled ? 'enabled' : 'disabled'}</span>
                  {ep.disabledReason && <div class="note">{ep.disabledReason}</div>}
                  {ep.failingSince && <div class="note">failing since {when(ep.failingSince)}</div>}
                </td>
                <td class="actions">
                  <button type="button" class="log" aria-expanded={open === ep.id} aria-label={`Deliveries of ${ep.url}`} onClick={() => setOpen(open === ep.id ? null : ep.id)}>
                    Deliveries
                  </button>{' '}
                  <button type="button" class="ping" disabled={busy} aria-label={`Ping ${ep.url}`} onClick={() => void act('Ping', 'POST', `${base}/${ep.id}/test`).then((r) => r && (setOpen(ep.id), setPings((n) => n + 1)))}>
                    Ping
                  </button>{' '}
                  <button type="button" class="toggle" disabled={busy} aria-label={`${ep.enabled ? 'Disable' : 'Enable'} ${ep.url}`} onClick={() => void act(ep.enabled ? 'Disable' : 'Enable', 'PATCH', `${base}/${ep.id}`, { enabled: !ep.enabled })}>
                    {ep.enabled ? 'Disable' : 'Enable'}
                  </button>{' '}
                  <Confirmed
                    open={confirming === ep.id}
                    onOpen={(o) => setConfirming(o ? ep.id : null)}
                    label={ep.url}
                    verb="Delete"
                    question="Delete it and its delivery log?"
                    cls="delete"
                    busy={busy}
                    onConfirm={() => void act('Delete', 'DELETE', `${base}/${ep.id}`).then(() => (setConfirming(null), open === ep.id && setOpen(null)))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown && <DeliveryLog key={`${shown.id}-${pings}`} apiKey={apiKey} endpoint={shown} />}
    </section>
  );
}
