// Upstreams: each server behind the gateway — connected, reconnecting or down (with why), the revision
// and era spoken, what it declared (capabilities, instructions, who it is) and how much it lists. An
// OAuth-protected upstream that needs a person has "Sign in": the browser goes to its authorization server
// and comes back to the console, which completes the sign-in (see main.tsx).
import { useState } from 'preact/hooks';
import { api, type UpstreamView } from '../api.js';
import { JsonTree } from '../components/json-tree.js';
import { UpstreamText } from '../components/upstream-text.js';
import { live, useLive } from '../live.js';

const STATUS: Record<string, string> = {
  ready: 'connected',
  connecting: 'connecting',
  down: 'down',
  'needs-sign-in': 'needs sign-in',
  closed: 'closed',
};

function SignInButton({ upstream }: { upstream: UpstreamView }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { authorizationUrl } = await api.startSignIn(upstream.name);
      // Only a web address: the gateway checked the authorization server's, this is the second wall.
      if (!/^https?:\/\//i.test(authorizationUrl))
        throw new Error('The sign-in address is not a web address');
      live.set({ signInNotice: undefined });
      location.assign(authorizationUrl);
    } catch (e) {
      setBusy(false);
      setError((e as Error).message);
    }
  };
  return (
    <div class="sign-in-upstream">
      <button type="button" class="primary" disabled={busy} onClick={() => void start()}>
        Sign in
      </button>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** `1 tool`, `2 tools`. */
const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function Upstreams() {
  const { upstreams, session, signInNotice } = useLive();
  return (
    <section aria-labelledby="upstreams-heading">
      <h2 id="upstreams-heading">Upstreams</h2>
      {signInNotice && (
        <p class={`notice ${signInNotice.ok ? '' : 'error-text'}`} role="alert">
          {signInNotice.text}
        </p>
      )}
      {upstreams.length === 0 && <p class="empty">No upstream is configured.</p>}
      <ul class="cards" role="list" aria-label="upstreams">
        {upstreams.map((u) => (
          <li
            key={u.name}
            class="card upstream"
            data-upstream={u.name}
            aria-labelledby={`upstream-${u.name}`}
          >
            <header>
              <h3 id={`upstream-${u.name}`}>{u.name}</h3>
              <span class={`status status-${u.status}`}>{STATUS[u.status] ?? u.status}</span>
              <span class="muted">{u.transport}</span>
            </header>
            {u.error && (
              <p class="error-text">
                <UpstreamText text={u.error} />
              </p>
            )}
            {u.status === 'needs-sign-in' && session?.canDecide && <SignInButton upstream={u} />}
            <dl class="facts">
              <dt>Server</dt>
              <dd>
                <UpstreamText text={u.serverInfo ? `${u.serverInfo.name} ${u.serverInfo.version}` : '—'} />
              </dd>
              <dt>Revision</dt>
              <dd>
                <UpstreamText text={u.protocolVersion ?? '—'} />
                {u.protocolVersion && (
                  <span class="muted">
                    {' '}
                    ({u.protocolVersion >= '2026-07-28' ? 'stateless era' : 'handshake era'})
                  </span>
                )}
              </dd>
              <dt>Lists</dt>
              <dd>
                {counted(u.counts.tools, 'tool')} · {counted(u.counts.resources, 'resource')} ·{' '}
                {counted(u.counts.templates, 'template')} · {counted(u.counts.prompts, 'prompt')}
              </dd>
              <dt>Exposed tools</dt>
              <dd>{u.tools.length}</dd>
            </dl>
            {u.instructions && (
              <details>
                <summary>Instructions</summary>
                <pre class="text-block">
                  <UpstreamText text={u.instructions} />
                </pre>
              </details>
            )}
            {u.capabilities && (
              <details>
                <summary>Capabilities</summary>
                <JsonTree value={u.capabilities} label="capabilities" />
              </details>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
