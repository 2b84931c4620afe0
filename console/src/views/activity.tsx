// Activity: every call through the gateway, live, newest first — running (a spinner, a progress bar when
// the upstream reports progress, the time so far, Cancel), finished, failed, denied, expired. Opening a
// call shows its arguments, its result rendered, its timing and its audit records. Filter by state,
// search by text, and export what is shown as JSON lines.
import { useEffect, useState } from 'preact/hooks';
import { api, type CallRecord, type CallSummary } from '../api.js';
import { callerName } from '../components/badges.js';
import { JsonTree, RawJson } from '../components/json-tree.js';
import { ResultView } from '../components/result-view.js';
import { useLive, useNow } from '../live.js';

/** A call's state in one word: running, ok, error, denied, expired, cancelled… */
export function stateOf(call: CallSummary): string {
  if (call.state === 'running') return 'running';
  if (call.decision === 'denied' || call.decision === 'expired' || call.decision === 'withdrawn')
    return call.decision;
  if (call.outcome === 'ok') return 'ok';
  if (call.outcome === 'cancelled') return 'cancelled';
  return 'failed';
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function CallProgress({ call, now }: { call: CallSummary; now: number }) {
  const { progress } = call;
  return (
    <span class="running">
      <span class="spinner" role="status" aria-label="running" />
      {progress?.total !== undefined ? (
        <progress
          value={progress.progress}
          max={progress.total}
          aria-label={`progress of call ${call.call.id}`}
        />
      ) : progress ? (
        <span class="muted">{progress.progress}</span>
      ) : null}
      {progress?.message && <span class="muted"> {progress.message}</span>}
      <span class="elapsed"> {seconds(Math.max(0, now - Date.parse(call.startedAt)))}</span>
    </span>
  );
}

function CallDetail({ id }: { id: number }) {
  const { tools, audit, calls } = useLive();
  const summary = calls.find((c) => c.call.id === id);
  const [record, setRecord] = useState<CallRecord | { error: string } | undefined>();
  const finished = summary?.state === 'finished';
  useEffect(() => {
    api.callDetail(id).then(setRecord, (e: Error) => setRecord({ error: e.message }));
  }, [id, finished]);
  if (!record) return <p class="muted">Loading…</p>;
  if ('error' in record) return <p class="error-text">{record.error}</p>;
  const tool = tools.find((t) => t.name === record.call.exposedName)?.tool;
  const records = audit.filter(
    (r) => r.callId === id || (r.approvalId !== undefined && r.approvalId === record.approvalId),
  );
  return (
    <div class="call-detail">
      <h4>Arguments</h4>
      <JsonTree value={record.arguments} label="arguments" open={3} />
      <details>
        <summary>Raw arguments</summary>
        <RawJson value={record.arguments} />
      </details>
      <h4>Result</h4>
      {record.result !== undefined ? (
        <ResultView result={record.result} outputSchema={tool?.outputSchema} />
      ) : record.error !== undefined ? (
        <p class="error-text">{record.error}</p>
      ) : record.resultDropped ? (
        <p class="muted">
          The result was not kept ({record.resultDropped === 'too-large' ? 'too large' : 'memory limit'}).
        </p>
      ) : (
        <p class="muted">No result yet.</p>
      )}
      <h4>Timing</h4>
      <p>
        started {new Date(record.startedAt).toLocaleTimeString()}
        {record.durationMs !== undefined && `, took ${seconds(record.durationMs)}`}
        {record.decision && `, ${record.decision}`}
        {record.cancelledBy && `, cancelled by ${record.cancelledBy}`}
      </p>
      <h4>Audit</h4>
      {records.length === 0 ? (
        <p class="muted">No record yet.</p>
      ) : (
        <RawJson value={records} label="audit records" />
      )}
    </div>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const STATES = ['all', 'running', 'ok', 'failed', 'denied', 'expired', 'cancelled'];

export function Activity() {
  const { calls, session } = useLive();
  const now = useNow(250);
  const [filter, setFilter] = useState('all');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<number | undefined>();
  const needle = search.trim().toLowerCase();
  const shown = calls.filter((c) => {
    if (filter !== 'all' && stateOf(c) !== filter) return false;
    if (needle === '') return true;
    const text =
      `${c.call.exposedName} ${c.call.upstream} ${callerName(c.call.caller)} ${stateOf(c)}`.toLowerCase();
    return text.includes(needle);
  });
  const exportShown = async () => {
    const lines: string[] = [];
    for (const c of shown) {
      const detail = await api.callDetail(c.call.id).catch(() => c);
      lines.push(JSON.stringify(detail));
    }
    download('toolwire-calls.jsonl', lines.join('\n') + '\n');
  };
  return (
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <div class="toolbar">
        <label>
          State{' '}
          <select value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value)}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search{' '}
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="button" onClick={() => void exportShown()} disabled={shown.length === 0}>
          Export JSON lines
        </button>
      </div>
      {shown.length === 0 && <p class="empty">No call{calls.length > 0 ? ' matches' : ' yet'}.</p>}
      <ul class="calls" role="list" aria-label="calls">
        {shown.map((c) => {
          const state = stateOf(c);
          const id = c.call.id;
          return (
            <li key={id} class={`call state-${state}`} data-call={id}>
              <div class="call-row">
                <button
                  type="button"
                  class="link"
                  aria-expanded={open === id}
                  onClick={() => setOpen(open === id ? undefined : id)}
                >
                  #{id} {c.call.exposedName}
                </button>
                <span class="muted">{callerName(c.call.caller)}</span>
                <span class={`badge state ${state}`}>{state}</span>
                {c.state === 'running' ? (
                  <CallProgress call={c} now={now} />
                ) : (
                  c.durationMs !== undefined && <span class="elapsed">{seconds(c.durationMs)}</span>
                )}
                {c.state === 'running' && session?.canDecide && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => void api.cancel(id).catch(() => undefined)}
                  >
                    Cancel
                  </button>
                )}
              </div>
              {open === id && <CallDetail id={id} />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
