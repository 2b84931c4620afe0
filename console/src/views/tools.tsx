// Tools: every tool the gateway exposes, by upstream — its name, title, description, annotation badges,
// icons (data: images of allowed types only), input and output schemas — with the policy that applies
// and why, a way to set it for this tool (or give it back to the rules), and a way to hide the tool from
// the model (it leaves tools/list, and clients are told with list_changed).
import { useState } from 'preact/hooks';
import { api, type ExposedToolView, type PolicyAction } from '../api.js';
import { AnnotationBadges } from '../components/badges.js';
import { JsonTree } from '../components/json-tree.js';
import { iconUrl } from '../components/safe-media.js';
import { useLive } from '../live.js';

function ToolCard({ view, canDecide }: { view: ExposedToolView; canDecide: boolean }) {
  const [error, setError] = useState<string | undefined>();
  const { tool } = view;
  const icons = (tool.icons ?? [])
    .map((icon) => iconUrl(icon.src))
    .filter((src): src is string => src !== undefined);
  const run = (work: Promise<unknown>) => {
    setError(undefined);
    work.catch((e: Error) => setError(e.message));
  };
  const policyId = `policy-${view.name}`;
  return (
    <li
      class={view.listed ? 'card tool' : 'card tool unlisted'}
      aria-labelledby={`tool-${view.name}`}
      data-tool={view.name}
    >
      <header>
        {icons[0] && <img class="icon" src={icons[0]} alt="" width={24} height={24} />}
        <h4 id={`tool-${view.name}`}>{view.name}</h4>
        {tool.title && <span class="muted">{tool.title}</span>}
        <AnnotationBadges annotations={tool.annotations} />
        {view.hidden && <span class="badge warn">hidden from the model</span>}
        {!view.listed && !view.hidden && <span class="badge">not listed (upstream down)</span>}
      </header>
      {tool.description && <p class="description">{tool.description}</p>}
      <div class="policy">
        <label for={policyId}>Policy</label>
        <select
          id={policyId}
          disabled={!canDecide}
          value={view.override ?? 'rules'}
          onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            run(api.setPolicy(view.name, value === 'rules' ? null : (value as PolicyAction)));
          }}
        >
          <option value="rules">by the rules ({view.override ? 'set here now' : view.policy.action})</option>
          <option value="allow">allow</option>
          <option value="ask">ask</option>
          <option value="deny">deny</option>
        </select>
        <span class={`badge policy-${view.policy.action}`}>{view.policy.action}</span>
        <span class="muted">{view.policy.reason}</span>
      </div>
      <label class="hide">
        <input
          type="checkbox"
          disabled={!canDecide}
          checked={view.hidden}
          onChange={(e) => run(api.setHidden(view.name, (e.target as HTMLInputElement).checked))}
        />
        Hide from the model
      </label>{' '}
      <a class="try" href={`#/try/${encodeURIComponent(view.name)}`}>
        Try {view.name}
      </a>
      <details>
        <summary>Input schema</summary>
        <JsonTree value={tool.inputSchema} label="input schema" />
      </details>
      {tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <JsonTree value={tool.outputSchema} label="output schema" />
        </details>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function Tools() {
  const { tools, upstreams, session } = useLive();
  const names = [...new Set([...upstreams.map((u) => u.name), ...tools.map((t) => t.upstream)])];
  return (
    <section aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
      {tools.length === 0 && <p class="empty">No tool is exposed.</p>}
      {names.map((upstream) => {
        const mine = tools.filter((t) => t.upstream === upstream);
        if (mine.length === 0) return null;
        return (
          <section key={upstream} aria-labelledby={`tools-of-${upstream}`}>
            <h3 id={`tools-of-${upstream}`}>{upstream}</h3>
            <ul class="cards" role="list" aria-label={`tools of ${upstream}`}>
              {mine.map((view) => (
                <ToolCard key={view.name} view={view} canDecide={session?.canDecide === true} />
              ))}
            </ul>
          </section>
        );
      })}
    </section>
  );
}
