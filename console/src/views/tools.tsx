// Tools: every tool the gateway exposes, by upstream — its name, title, description, annotation badges,
// icons (data: images of allowed types only), input and output schemas — with the policy that applies
// and why, a way to set it for this tool (or give it back to the rules), and a way to hide the tool from
// the model (it leaves tools/list, and clients are told with list_changed). A gateway may expose thousands
// of tools: they are filtered by what is typed and shown a page (PAGE) at a time, a schema is drawn only
// when opened, and a card is drawn again only when its tool changes.
import type { ComponentChildren } from 'preact';
import { memo } from 'preact/compat';
import { useMemo, useState } from 'preact/hooks';
import { api, type ExposedToolView, type PolicyAction } from '../api.js';
import { AnnotationBadges } from '../components/badges.js';
import { JsonTree } from '../components/json-tree.js';
import { iconUrl } from '../components/safe-media.js';
import { UpstreamText } from '../components/upstream-text.js';
import { useLive } from '../live.js';

const PAGE = 100;

/** A <details> whose contents are drawn once it is opened. */
function Folded({ summary, children }: { summary: string; children: () => ComponentChildren }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{summary}</summary>
      {open && children()}
    </details>
  );
}

const ToolCard = memo(function ToolCard({ view, canDecide }: { view: ExposedToolView; canDecide: boolean }) {
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
        <h4 id={`tool-${view.name}`}>
          <UpstreamText text={view.name} />
        </h4>
        {tool.title && (
          <span class="muted">
            <UpstreamText text={tool.title} />
          </span>
        )}
        <AnnotationBadges annotations={tool.annotations} />
        {view.hidden && <span class="badge warn">hidden from the model</span>}
        {!view.listed && !view.hidden && <span class="badge">not listed (upstream down)</span>}
      </header>
      {tool.description && (
        <p class="description">
          <UpstreamText text={tool.description} />
        </p>
      )}
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
        <span class="muted">
          <UpstreamText text={view.policy.reason} />
        </span>
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
        Try <UpstreamText text={view.name} />
      </a>
      <Folded summary="Input schema">
        {() => <JsonTree value={tool.inputSchema} label="input schema" />}
      </Folded>
      {tool.outputSchema && (
        <Folded summary="Output schema">
          {() => <JsonTree value={tool.outputSchema} label="output schema" />}
        </Folded>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </li>
  );
});

export function Tools() {
  const { tools, upstreams, session } = useLive();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const needle = search.trim().toLowerCase();
  // Grouped by upstream (in the upstreams' order), then filtered and cut into pages.
  const matching = useMemo(() => {
    const order = new Map<string, number>();
    for (const u of upstreams) order.set(u.name, order.size);
    for (const t of tools) if (!order.has(t.upstream)) order.set(t.upstream, order.size);
    const found = tools.filter(
      (t) =>
        needle === '' ||
        t.name.toLowerCase().includes(needle) ||
        (t.tool.title ?? '').toLowerCase().includes(needle),
    );
    return found
      .map((t, index) => ({ t, index }))
      .sort((a, b) => order.get(a.t.upstream)! - order.get(b.t.upstream)! || a.index - b.index)
      .map(({ t }) => t);
  }, [tools, upstreams, needle]);
  const pages = Math.max(1, Math.ceil(matching.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = matching.slice(current * PAGE, (current + 1) * PAGE);
  const groups: [string, ExposedToolView[]][] = [];
  for (const view of shown) {
    const last = groups[groups.length - 1];
    if (last && last[0] === view.upstream) last[1].push(view);
    else groups.push([view.upstream, [view]]);
  }
  return (
    <section aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
      {tools.length === 0 ? (
        <p class="empty">No tool is exposed.</p>
      ) : (
        <div class="toolbar">
          <label>
            Filter{' '}
            <input
              type="search"
              value={search}
              onInput={(e) => {
                setSearch((e.target as HTMLInputElement).value);
                setPage(0);
              }}
            />
          </label>
          <span class="muted" role="status" aria-label="tools shown">
            {matching.length === 0
              ? 'no tool matches'
              : `${current * PAGE + 1}–${current * PAGE + shown.length} of ${matching.length}${
                  needle === '' ? '' : ` matching (${tools.length} in all)`
                }`}
          </span>
        </div>
      )}
      {groups.map(([upstream, mine]) => (
        <section key={upstream} aria-labelledby={`tools-of-${upstream}`}>
          <h3 id={`tools-of-${upstream}`}>
            <UpstreamText text={upstream} />
          </h3>
          <ul class="cards" role="list" aria-label={`tools of ${upstream}`}>
            {mine.map((view) => (
              <ToolCard key={view.name} view={view} canDecide={session?.canDecide === true} />
            ))}
          </ul>
        </section>
      ))}
      {pages > 1 && (
        <nav class="pager" aria-label="tool pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span>
            page {current + 1} of {pages}
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
