// Upstreams: each server behind the gateway — connected, reconnecting or down (with why), the revision
// and era spoken, what it declared (capabilities, instructions, who it is) and how much it lists.
import { JsonTree } from '../components/json-tree.js';
import { useLive } from '../live.js';

const STATUS: Record<string, string> = {
  ready: 'connected',
  connecting: 'connecting',
  down: 'down',
  closed: 'closed',
};

export function Upstreams() {
  const { upstreams } = useLive();
  return (
    <section aria-labelledby="upstreams-heading">
      <h2 id="upstreams-heading">Upstreams</h2>
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
            {u.error && <p class="error-text">{u.error}</p>}
            <dl class="facts">
              <dt>Server</dt>
              <dd>{u.serverInfo ? `${u.serverInfo.name} ${u.serverInfo.version}` : '—'}</dd>
              <dt>Revision</dt>
              <dd>
                {u.protocolVersion ?? '—'}
                {u.protocolVersion && (
                  <span class="muted">
                    {' '}
                    ({u.protocolVersion >= '2026-07-28' ? 'stateless era' : 'handshake era'})
                  </span>
                )}
              </dd>
              <dt>Lists</dt>
              <dd>
                {u.counts.tools} tools · {u.counts.resources} resources · {u.counts.templates} templates ·{' '}
                {u.counts.prompts} prompts
              </dd>
              <dt>Exposed tools</dt>
              <dd>{u.tools.length}</dd>
            </dl>
            {u.instructions && (
              <details>
                <summary>Instructions</summary>
                <pre class="text-block">{u.instructions}</pre>
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
