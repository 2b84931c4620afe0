// Signing in: the one-time link the gateway prints signs a browser in by itself; without it, a person
// pastes a token (the API token, or one of the deciding or watching role) and may say their name, which
// the decisions they take carry as their own claim (`console:NAME (api-token)`). Sign in stays disabled
// until a token is typed, and says so: the button is described by the line that says what to enter.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { live } from '../live.js';

export function SignIn({ message }: { message?: string }) {
  const [token, setToken] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState(message);
  return (
    <main class="sign-in">
      <h1>toolwire console</h1>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setError(undefined);
          api.signIn(token.trim(), name.trim() || undefined).then(
            () => void live.start(),
            (e: Error) => setError(e.message),
          );
        }}
      >
        <p>Open the link the gateway printed, or sign in with a token.</p>
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        <label for="name">Your name (optional; your decisions show it as declared by you)</label>
        <input
          id="name"
          type="text"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <p id="sign-in-needs" class="muted">
          {token.trim() === ''
            ? 'Enter a token to sign in: the API token the gateway printed (TOOLWIRE_TOKEN), or a token of the approver or watcher role.'
            : 'Ready to sign in.'}
        </p>
        <button type="submit" class="primary" disabled={token.trim() === ''} aria-describedby="sign-in-needs">
          Sign in
        </button>
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
