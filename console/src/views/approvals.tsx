// Approvals: every call waiting for a person, live, oldest first — who calls which tool of which
// upstream, its annotations, why the policy asks, the exact arguments (as a tree and as raw JSON), the
// time left — and the three answers: Approve, Approve always (this tool, this caller), Deny with a reason
// the model reads. A decision is bound to the arguments shown (their digest). Arguments too long for the
// gateway to list come on request (one approval, whole), and it can be approved only once they are shown.
// Below, the latest decisions, whoever took them.
import { useState } from 'preact/hooks';
import type { JsonObject } from 'toolwire';
import { api, type ListedApproval } from '../api.js';
import { AnnotationBadges, callerName } from '../components/badges.js';
import { JsonTree, RawJson } from '../components/json-tree.js';
import { useLive, useNow, type Decided } from '../live.js';

function left(expiresAt: string, now: number): string {
  const ms = Math.max(0, Date.parse(expiresAt) - now);
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function ApprovalCard({
  approval,
  canDecide,
  now,
}: {
  approval: ListedApproval;
  canDecide: boolean;
  now: number;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [raw, setRaw] = useState(false);
  // The arguments: listed, or (too long to list) loaded when asked for.
  const [loaded, setLoaded] = useState<JsonObject | undefined>();
  const [loading, setLoading] = useState(false);
  const args = approval.arguments ?? loaded;
  const load = () => {
    setLoading(true);
    setError(undefined);
    api.approval(approval.id).then(
      (stored) => {
        setLoading(false);
        setLoaded(stored.approval.arguments);
      },
      (e: Error) => {
        setLoading(false);
        setError(e.message);
      },
    );
  };
  const decide = (run: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    run().then(
      () => setBusy(false),
      (e: Error) => {
        setBusy(false);
        setError(e.message);
      },
    );
  };
  const headingId = `approval-${approval.id}`;
  return (
    <li class="card approval" aria-labelledby={headingId} data-approval={approval.id}>
      <header>
        <h3 id={headingId}>
          {approval.title ?? approval.exposedName} <span class="muted">({approval.upstream})</span>
        </h3>
        <span class="countdown" role="timer" aria-label="time left">
          expires in {left(approval.expiresAt, now)}
        </span>
      </header>
      <p class="meta">
        <span>caller: {callerName(approval.caller)}</span> · <span>tool: {approval.exposedName}</span>{' '}
        <AnnotationBadges annotations={approval.annotations} />
      </p>
      <p class="meta">why: {approval.reason}</p>
      {approval.description && <p class="description">{approval.description}</p>}
      <div class="arguments">
        <div class="arguments-head">
          <h4>Arguments</h4>
          <button type="button" class="link" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            {raw ? 'Show as a tree' : 'Show raw JSON'}
          </button>
        </div>
        {args === undefined ? (
          <p class="muted">
            {approval.argumentsBytes ?? '?'} bytes, too long to list.{' '}
            <button type="button" class="link" disabled={loading} onClick={load}>
              Show the arguments
            </button>
          </p>
        ) : raw ? (
          <RawJson value={args} label="arguments" />
        ) : (
          <JsonTree value={args} label="arguments" open={4} />
        )}
      </div>
      {canDecide ? (
        <div class="decide">
          <button
            type="button"
            class="primary"
            disabled={busy || args === undefined}
            onClick={() => decide(() => api.approve(approval.id, approval.argumentsDigest, false))}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={busy || args === undefined}
            onClick={() => decide(() => api.approve(approval.id, approval.argumentsDigest, true))}
          >
            Approve always
          </button>
          <label class="reason">
            <span class="visually-hidden">Reason</span>
            <input
              type="text"
              placeholder="Reason (the model reads it)"
              maxLength={1000}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
            />
          </label>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => decide(() => api.deny(approval.id, reason))}
          >
            Deny
          </button>
        </div>
      ) : (
        <p class="muted">You may watch, not decide.</p>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

function outcomeText({ outcome }: Decided): string {
  switch (outcome.decision) {
    case 'approved':
      return `approved${outcome.always ? ' always' : ''} by ${outcome.decidedBy}`;
    case 'denied':
      return `denied by ${outcome.decidedBy}${outcome.reason ? `: ${outcome.reason}` : ''}`;
    case 'expired':
      return 'expired (no one decided in time)';
    case 'withdrawn':
      return `withdrawn: ${outcome.reason}`;
  }
}

export function Approvals() {
  const { approvals, decided, session } = useLive();
  const now = useNow();
  return (
    <section aria-labelledby="approvals-heading">
      <h2 id="approvals-heading">Approvals</h2>
      {approvals.length === 0 ? (
        <p class="empty">Nothing waits for a decision.</p>
      ) : (
        <ul class="cards" role="list" aria-label="pending approvals">
          {approvals.map((approval) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              canDecide={session?.canDecide === true}
              now={now}
            />
          ))}
        </ul>
      )}
      <h3>Latest decisions</h3>
      {decided.length === 0 ? (
        <p class="empty">None yet.</p>
      ) : (
        <ul class="decided" role="list" aria-label="latest decisions">
          {decided.map((d) => (
            <li key={d.approval.id} class={`decision ${d.outcome.decision}`} data-approval={d.approval.id}>
              <strong>{d.approval.exposedName}</strong> <span class="outcome">{outcomeText(d)}</span>{' '}
              <span class="muted">{new Date(d.outcome.decidedAt).toLocaleTimeString()}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
