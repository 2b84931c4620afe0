// Activity: the calls through the gateway, live, newest first — running (a spinner, a progress bar when
// the upstream reports progress, the time so far, Cancel), finished, failed, denied, expired. Opening a
// call shows its arguments, its result rendered, its timing and its audit records. Filter by state,
// search by text, and export what is shown as JSON lines. Each row is drawn again only when its call
// changes (or it is opened), and a running call's time ticks in its own row. The gateway numbers its calls
// one after the other (each instance in its own range) but logs them only while someone watches (and a
// minute after): where the ids listed skip some, a note says how many calls are not in the log.
import { Fragment } from 'preact';
import { memo } from 'preact/compat';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { api, type CallRecord, type CallSummary } from '../api.js';
import { callerName } from '../components/badges.js';
import { GrantNote } from '../components/grant-note.js';
import { useFocusHandoff } from '../components/focus-handoff.js';
import { JsonTree, RawJson } from '../components/json-tree.js';
import { LocalTime } from '../components/local-time.js';
import { ResultView } from '../components/result-view.js';
import { UpstreamText } from '../components/upstream-text.js';
import { ViewBoundary } from '../components/view-boundary.js';
import { WindowedList } from '../components/windowed-list.js';
import { useLive, useNow } from '../live.js';

/**
 * A call's state in one word: running (`waiting` for a person, while its approval is pending), ok, error,
 * denied, expired, cancelled…
 */
export function stateOf(call: CallSummary): string {
  if (call.state === 'running') return call.awaitingApproval === undefined ? 'running' : 'waiting';
  if (call.decision === 'denied' || call.decision === 'expired' || call.decision === 'withdrawn')
    return call.decision;
  if (call.outcome === 'ok') return 'ok';
  if (call.outcome === 'cancelled') return 'cancelled';
  return 'failed';
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** A running call's progress and time so far, ticking by itself. */
function RunningCall({ call }: { call: CallSummary }) {
  const now = useNow(250);
  return <CallProgress call={call} now={now} />;
}

export function CallProgress({ call, now }: { call: CallSummary; now: number }) {
  const { progress } = call;
  // Its name says what the call waits for: the upstream, or a person.
  const doing = call.awaitingApproval === undefined ? 'running' : 'waiting for approval';
  return (
    <span class="running">
      <span class="spinner" role="status" aria-label={doing} />
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

/**
 * What an `isError` result of a call that ended so is: the tool's error, or the gateway's answer in its stead
 * (the tool did not run, or was stopped), which the model read as well.
 */
function errorBanner(outcome: CallSummary['outcome']): string | undefined {
  switch (outcome) {
    case 'refused':
      return 'Not run: the gateway refused the call (the model read this error)';
    case 'unavailable':
      return 'Not run: the upstream or a store was unavailable (the model read this error)';
    case 'cancelled':
      return 'Cancelled (the model read this error)';
    case 'ok':
    case 'tool-error':
    case 'error':
    case 'input_required':
    case 'lost':
    case undefined:
      return undefined;
  }
}

function CallDetail({ id }: { id: number }) {
  const { tools, audit, calls, approvals } = useLive();
  const summary = calls.find((c) => c.call.id === id);
  // A call that waits for a person: its approval, while it is pending (and when the page lists it).
  const waitsFor = summary?.state === 'running' ? summary.awaitingApproval : undefined;
  const asking = waitsFor === undefined ? undefined : approvals.find((a) => a.id === waitsFor);
  const [record, setRecord] = useState<CallRecord | { error: string } | undefined>();
  const finished = summary?.state === 'finished';
  // Opened while it ran: its error, when it ends so, just happened (an alert); not one of a call ended before.
  const [openedRunning] = useState(summary?.state === 'running');
  useEffect(() => {
    api.callDetail(id).then(setRecord, (e: Error) => setRecord({ error: e.message }));
  }, [id, finished]);
  if (!record) return <p class="muted">Loading…</p>;
  if ('error' in record) return <p class="error-text">{record.error}</p>;
  const tool = tools.find((t) => t.name === record.call.exposedName)?.tool;
  // Its records, and those of the approval it was held for or whose "Approve always" let it through.
  const approvalIds = [record.approvalId, record.grant?.approvalId].filter((a) => a !== undefined);
  const records = audit.filter(
    (r) => r.callId === id || (r.approvalId !== undefined && approvalIds.includes(r.approvalId)),
  );
  return (
    <div class="call-detail">
      <h4>Arguments</h4>
      {record.argumentsDropped && (
        <p class="muted">
          The arguments were not kept (
          {record.argumentsDropped === 'too-large' ? 'too large' : 'memory limit'}).
        </p>
      )}
      <JsonTree value={record.arguments} label="arguments" open={3} />
      <details>
        <summary>Raw arguments</summary>
        <RawJson value={record.arguments} />
      </details>
      <h4>Result</h4>
      {record.result !== undefined ? (
        <ResultView
          result={record.result}
          outputSchema={tool?.outputSchema}
          errorSays={errorBanner(record.outcome)}
          fresh={openedRunning}
        />
      ) : record.error !== undefined ? (
        <p class="error-text">{record.error}</p>
      ) : record.resultDropped ? (
        <p class="muted">
          The result was not kept ({record.resultDropped === 'too-large' ? 'too large' : 'memory limit'}).
        </p>
      ) : waitsFor !== undefined ? (
        <p class="muted">
          Waits for approval: <a href={`#/approvals/${encodeURIComponent(waitsFor)}`}>see it in Approvals</a>
          {asking
            ? ` (asked ${new Date(asking.createdAt).toLocaleTimeString()}, expires ${new Date(asking.expiresAt).toLocaleTimeString()}).`
            : ` (id ${waitsFor.slice(0, 8)}).`}
        </p>
      ) : (
        <p class="muted">No result yet.</p>
      )}
      <h4>Timing</h4>
      <p>
        started <LocalTime iso={record.startedAt} />
        {record.durationMs !== undefined && `, took ${seconds(record.durationMs)}`}
        {record.decision && `, ${record.decision}`}
        {record.decision === 'remembered' && (
          <>
            : <GrantNote grant={record.grant} />
          </>
        )}
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

/** Call ids of one gateway instance: instance n numbers its calls from n × this (`CALL_IDS_PER_INSTANCE`). */
const IDS_PER_INSTANCE = 2 ** 32;

/**
 * For a list of calls (newest first): by call id, how many calls of its instance came after it and before
 * the next one listed (never logged: nobody watched then; or no longer kept).
 */
export function missedAfter(calls: readonly CallSummary[]): Map<number, number> {
  const newer = new Map<number, number>();
  const missed = new Map<number, number>();
  for (const { call } of calls) {
    const instance = Math.floor(call.id / IDS_PER_INSTANCE);
    const next = newer.get(instance);
    if (next !== undefined && next - call.id > 1) missed.set(call.id, next - call.id - 1);
    newer.set(instance, call.id);
  }
  return missed;
}

/**
 * The note where calls are missing above row `row`; above a running call (listed past the latest because it
 * runs), those missing may also be finished calls the log no longer keeps.
 */
function MissedCalls({ count, row, running }: { count: number; row: number; running: boolean }) {
  return (
    <li class="missed" data-row={row}>
      <span role="note">
        {count === 1 ? '1 call' : `${count} calls`} not in the call log (
        {running
          ? 'finished and no longer kept, or made while no console was watching'
          : 'made while no console was watching'}
        ) — see <a href="#/audit">Audit</a>
      </span>
    </li>
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

/** A running call's Cancel: once the call ends (and the button goes), its row's own button has the focus. */
function CancelCall({ id }: { id: number }) {
  const button = useFocusHandoff<HTMLButtonElement>(() =>
    document.querySelector<HTMLElement>(`li[data-call="${id}"] .call-row button`),
  );
  return (
    <button
      ref={button}
      type="button"
      class="danger"
      aria-label={`Cancel call #${id}`}
      onClick={() => void api.cancel(id).catch(() => undefined)}
    >
      Cancel
    </button>
  );
}

/** A collapsed call's height with the list's gap, before it is measured (px). */
const CALL_ROW_PX = 52;
const callKey = (c: CallSummary) => c.call.id;

/** Every state `stateOf` names, to filter by. */
const STATES = ['all', 'running', 'waiting', 'ok', 'failed', 'denied', 'expired', 'withdrawn', 'cancelled'];

const CallRow = memo(function CallRow({
  c,
  open,
  canDecide,
  toggle,
  place,
  of,
}: {
  c: CallSummary;
  open: boolean;
  canDecide: boolean;
  toggle: (id: number) => void;
  /** Its place in the list shown, and that list's length (most rows are not drawn). */
  place: number;
  of: number;
}) {
  const state = stateOf(c);
  const id = c.call.id;
  return (
    <li class={`call state-${state}`} data-call={id} data-row={id} aria-posinset={place} aria-setsize={of}>
      <div class="call-row">
        <button type="button" class="link" aria-expanded={open} onClick={() => toggle(id)}>
          #{id} <UpstreamText text={c.call.exposedName} />
        </button>
        <span class="muted">
          <UpstreamText text={callerName(c.call.caller)} />
        </span>
        <span class={`badge state ${state}`}>{state}</span>
        {c.decision === 'remembered' && <GrantNote grant={c.grant} />}
        {c.state === 'running' && c.awaitingApproval !== undefined && (
          <a
            href={`#/approvals/${encodeURIComponent(c.awaitingApproval)}`}
            aria-label={`Approval of call #${id}: see it in Approvals`}
          >
            for approval
          </a>
        )}
        {c.state === 'running' ? (
          <RunningCall call={c} />
        ) : (
          c.durationMs !== undefined && <span class="elapsed">{seconds(c.durationMs)}</span>
        )}
        {c.state === 'running' && canDecide && <CancelCall id={id} />}
      </div>
      {open && (
        <ViewBoundary>
          <CallDetail id={id} />
        </ViewBoundary>
      )}
    </li>
  );
});

export function Activity() {
  const { calls, session, callsUnread, runningOmitted } = useLive();
  const [filter, setFilter] = useState('all');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<number | undefined>();
  const toggle = useCallback((id: number) => setOpen((current) => (current === id ? undefined : id)), []);
  const needle = search.trim().toLowerCase();
  const shown = useMemo(
    () =>
      calls.filter((c) => {
        const state = stateOf(c);
        if (filter !== 'all' && state !== filter) return false;
        if (needle === '') return true;
        const text =
          `${c.call.exposedName} ${c.call.upstream} ${callerName(c.call.caller)} ${state}`.toLowerCase();
        return text.includes(needle);
      }),
    [calls, filter, needle],
  );
  // Only the whole list shows where calls are missing (a filtered one skips calls anyway).
  const missed = useMemo(
    () => (filter === 'all' && needle === '' ? missedAfter(calls) : new Map<number, number>()),
    [calls, filter, needle],
  );
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
      {callsUnread !== undefined && (
        <p class="notice error-text" role="alert">
          The calls could not be read ({callsUnread}); trying again.
        </p>
      )}
      {shown.length === 0 && callsUnread === undefined && (
        <p class="empty">No call{calls.length > 0 ? ' matches' : ' yet'}.</p>
      )}
      <WindowedList
        items={shown}
        keyOf={callKey}
        estimate={CALL_ROW_PX}
        class="calls"
        label="calls"
        render={(c, index) => {
          const count = missed.get(c.call.id);
          const row = (
            <CallRow
              key={c.call.id}
              c={c}
              open={open === c.call.id}
              canDecide={session?.canDecide === true}
              toggle={toggle}
              place={index + 1}
              of={shown.length}
            />
          );
          return count === undefined ? (
            row
          ) : (
            <Fragment key={c.call.id}>
              <MissedCalls count={count} row={c.call.id} running={c.state === 'running'} />
              {row}
            </Fragment>
          );
        }}
      />
      {runningOmitted > 0 && (
        <p class="notice" role="status">
          {runningOmitted} more running call{runningOmitted === 1 ? '' : 's'} not shown (older than those
          listed: the call log lists as many running calls past its latest as it keeps calls).
        </p>
      )}
    </section>
  );
}
