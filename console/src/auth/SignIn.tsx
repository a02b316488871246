/**
 * Sign-in: an API key is exchanged for a short-lived console token and then forgotten. The token
 * lives in this tab's memory only, so a reload asks again (the page says so).
 */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ErrorBanner, InfoBanner } from '../components/ErrorBanner';
import { useAuth } from './session';

export function SignIn() {
  const { signIn, notice } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Combo console';
    input.current?.focus();
  }, []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = input.current;
    if (!field) return;
    setBusy(true);
    setError(null);
    try {
      await signIn(field.value);
      // The key is not kept anywhere, not even in the form.
      field.value = '';
    } catch (failure) {
      setError(failure);
      field.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin" id="main">
      <div className="signin-card">
        <h1>Sign in to the Combo console</h1>
        {notice && <InfoBanner>{notice}</InfoBanner>}
        {error !== null && <ErrorBanner error={error} title="Sign-in failed" />}
        <form onSubmit={(event) => void submit(event)}>
          <label htmlFor="api-key">API key</label>
          <input
            ref={input}
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            placeholder="combo_…"
            aria-describedby="api-key-help"
            aria-invalid={error !== null}
          />
          <p id="api-key-help" className="help">
            Paste one of your API keys. <code>npm start</code> prints an admin key; admins create keys for others under Personal settings →
            API keys.
          </p>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <div className="signin-notes">
          <p>
            The key is exchanged for a short-lived session token and is not kept. The token stays in this tab's memory only and renews
            itself while the tab is open: <strong>reloading the page or opening a new tab asks you to sign in again.</strong>
          </p>
        </div>
      </div>
    </main>
  );
}
