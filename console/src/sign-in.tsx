// Sign-in with an API key: checked against the API before it is kept (sessionStorage, by the shell).
import { useState } from 'preact/hooks';
import { whoIs, type Role } from './api.js';

export function SignIn({ onSignedIn }: { onSignedIn: (key: string, role: Role) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const who = await whoIs(key.trim()).catch((err: Error) => ({ error: `The server did not answer: ${err.message}` }));
    setBusy(false);
    if ('role' in who) onSignedIn(key.trim(), who.role);
    else setError(who.error);
  };

  return (
    <main class="sign-in">
      <h1>Quire console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autocomplete="off" spellcheck={false} required value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="ak_…" aria-describedby="sign-in-note" />
        <button id="sign-in" type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <p id="sign-in-note" class="note">
          The key stays in this tab only (session storage) and is sent to this server alone.
        </p>
      </form>
    </main>
  );
}
