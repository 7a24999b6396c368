// Credits: the organization's balance, what unfinished jobs hold, and the ledger, newest first (GET /credits).
import { useEffect, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { ErrorLine, Head, when } from './parts.js';
import type { Static } from '@sinclair/typebox';
import type { CreditsSchema } from '../../contracts/common.js';

/** GET /credits' answer, as the API's contract (contracts/common.ts) types it. */
type CreditState = Static<typeof CreditsSchema>;

/** The ledger entries shown: the API gives up to 500, newest first. */
const ENTRIES = 100;

export function CreditsPage({ apiKey }: { apiKey: string }) {
  const [state, setState] = useState<CreditState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    const r = await call(apiKey, 'GET', `/credits?limit=${ENTRIES}`);
    if (r.status === 200) setState(r.body);
    else setError(problemText(r));
  };
  useEffect(() => void load(), [apiKey]);

  return (
    <section class="page credits-page">
      <h1>Credits</h1>
      <ErrorLine id="credits-error" text={error} />
      {state && (
        <>
          <dl class="figures">
            <div>
              <dt>Balance</dt>
              <dd id="balance">{state.balance}</dd>
            </div>
            <div>
              <dt>Held by unfinished jobs</dt>
              <dd id="reserved">{state.reserved}</dd>
            </div>
            <div>
              <dt>Available</dt>
              <dd id="available">{state.available}</dd>
            </div>
          </dl>
          <p>
            <button id="reload-credits" type="button" onClick={() => void load()}>
              Refresh
            </button>
          </p>
          <h2>Ledger</h2>
          {state.entries.length ? (
            <table id="ledger">
              <Head columns={['When', 'Kind', 'Amount', 'Balance after', 'Action', 'Job or note']} />
              <tbody>
                {state.entries.map((e) => (
                  <tr id={`entry-${e.id}`} data-job-id={e.jobId ?? ''}>
                    <td>{when(e.createdAt)}</td>
                    <td>{e.kind}</td>
                    <td class={`amount ${e.amount < 0 ? 'charge' : 'grant'}`}>{e.amount > 0 ? `+${e.amount}` : e.amount}</td>
                    <td class="number">{e.balanceAfter}</td>
                    <td>{e.action ? <code>{e.action}</code> : ''}</td>
                    <td>{e.jobId ? <code>{e.jobId}</code> : e.note ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="note">No ledger entries yet.</p>
          )}
          <p class="note">The newest {ENTRIES} entries. A job is charged when it completes; a failed job costs nothing.</p>
        </>
      )}
    </section>
  );
}
