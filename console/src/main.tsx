// The console's shell: sign-in, the header (credits, pages, sign-out) and the page the path names (/console/editor,
// /console/library, /console/jobs, …, /console/plugins); it keeps the editor's draft, so the Library can open things in the editor.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, storedKey, storeKey, whoIs, type Role } from './api.js';
import { SignIn } from './sign-in.js';
import { Editor } from './editor.js';
import { Library } from './library.js';
import { NEW_DRAFT, type Draft } from './draft.js';
import { Plugins } from './plugins.js';
import { Jobs } from './jobs.js';
import { CreditsPage } from './credits.js';
import { ApiKeys } from './api-keys.js';
import { Webhooks } from './webhooks.js';
import './console.css';

const BASE = '/console';

const TITLES: Record<string, string> = { editor: 'Editor', library: 'Library', jobs: 'Jobs', credits: 'Credits', keys: 'API keys', webhooks: 'Webhooks', plugins: 'Plugins' };
/** The pages of a key's role, in the header's order: an operator key has the Plugins page only. */
const pagesOf = (role: Role) => (role === 'operator' ? ['plugins'] : ['editor', 'library', 'jobs', 'credits', 'keys', 'webhooks']);

function currentPage(): string {
  return location.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '');
}

function go(page: string): void {
  history.pushState(null, '', `${BASE}/${page}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The header's available credits, read again after a paid action (`refresh`) and on every page change (jobs may have been charged). */
function Credits({ apiKey, refresh }: { apiKey: string; refresh: string }) {
  const [available, setAvailable] = useState<number | null>(null);
  useEffect(() => {
    void call(apiKey, 'GET', '/credits?limit=1').then((a) => a.status === 200 && setAvailable(a.body.available));
  }, [apiKey, refresh]);
  return available === null ? null : <span id="credits" class="credits">{available} credits</span>;
}

function App() {
  const [session, setSession] = useState<{ key: string; role: Role } | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);
  const [page, setPage] = useState(currentPage());
  const [spent, setSpent] = useState(0);
  const [draft, setDraftState] = useState<Draft>(NEW_DRAFT);
  const setDraft = (update: (d: Draft) => Draft) => setDraftState(update);

  useEffect(() => {
    const onPop = () => setPage(currentPage());
    addEventListener('popstate', onPop);
    const key = storedKey();
    // A reload keeps the tab's key; a key revoked meanwhile sends the person back to sign-in.
    if (key) {
      void whoIs(key)
        .then((who) => ('role' in who ? setSession({ key, role: who.role }) : storeKey(null)))
        .catch(() => undefined)
        .finally(() => setChecking(false));
    }
    return () => removeEventListener('popstate', onPop);
  }, []);

  if (checking) return <p class="loading">Checking the key…</p>;
  // Signing in on a page's own address (a bookmark of /console/jobs) stays there when the key may see it.
  if (!session) return <SignIn onSignedIn={(key, role) => (storeKey(key), setSession({ key, role }), setDraftState(NEW_DRAFT), go(pagesOf(role).includes(page) ? page : pagesOf(role)[0]!))} />;

  const pages = pagesOf(session.role);
  const shown = pages.includes(page) ? page : pages[0]!;
  return (
    <>
      <header class="bar">
        <strong>Quire console</strong>
        <nav>
          {pages.map((p) => (
            <a href={`${BASE}/${p}`} aria-current={p === shown ? 'page' : undefined} onClick={(e) => (e.preventDefault(), go(p))}>
              {TITLES[p]}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        {session.role === 'org' ? <Credits apiKey={session.key} refresh={`${spent}/${shown}`} /> : <span class="credits">Operator key</span>}
        <button id="sign-out" type="button" onClick={() => (storeKey(null), setSession(null), go(''))}>
          Sign out
        </button>
      </header>
      <main>
        {shown === 'plugins' ? (
          <Plugins apiKey={session.key} />
        ) : shown === 'library' ? (
          <Library apiKey={session.key} setDraft={setDraft} openEditor={() => go('editor')} />
        ) : shown === 'jobs' ? (
          <Jobs apiKey={session.key} />
        ) : shown === 'credits' ? (
          <CreditsPage apiKey={session.key} />
        ) : shown === 'keys' ? (
          <ApiKeys apiKey={session.key} />
        ) : shown === 'webhooks' ? (
          <Webhooks apiKey={session.key} />
        ) : (
          <Editor apiKey={session.key} draft={draft} setDraft={setDraft} onSpent={() => setSpent((n) => n + 1)} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
