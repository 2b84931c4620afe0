// Approvals: every call waiting for a person, live, oldest first — who calls which tool of which
// upstream, its annotations, why the policy asks, the exact arguments (as a tree and as raw JSON), the
// time left — and the three answers: Approve, Approve always (this tool, this caller), Deny with a reason
// the model reads. A decision is bound to the arguments shown (their digest). Arguments too long for the
// gateway to list come on request (one approval, whole), and it can be approved only once they are shown.
// Below, the latest decisions, whoever took them.
//
// The heading is the gateway's name of the tool (upstream__tool): the upstream's title is its claim, shown
// beside it, and every upstream text escapes the characters that reorder or hide text. Each card is drawn
// again only when its approval changes, and its countdown ticks by itself. What a person did to a card (the
// reason typed, raw JSON or tree, the "approve always" period, the arguments loaded) is kept by approval id
// outside it, for as long as the page (a card scrolled far away is taken out of the page, and the view itself
// when another is shown) — a card opened alone too, which the list may not hold — and goes when the approval
// does or the person signs out.
import { memo } from 'preact/compat';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { JsonObject } from 'toolwire';
import { api, ApiError, type ListedApproval } from '../api.js';
import { AnnotationBadges, callerName } from '../components/badges.js';
import { useFocusHandoff } from '../components/focus-handoff.js';
import { JsonTree, RawJson } from '../components/json-tree.js';
import { LocalTime } from '../components/local-time.js';
import { RowStates, useRowState } from '../components/row-states.js';
import { UpstreamText } from '../components/upstream-text.js';
import { WindowedList } from '../components/windowed-list.js';
import { live, useLive, useNow, type Decided } from '../live.js';

function left(expiresAt: string, now: number): string {
  const ms = Math.max(0, Date.parse(expiresAt) - now);
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function Countdown({ expiresAt }: { expiresAt: string }) {
  const now = useNow();
  return (
    <span class="countdown" role="timer" aria-label="time left">
      expires in {left(expiresAt, now)}
    </span>
  );
}

const HOUR = 3_600_000;
/** How long "Approve always" lasts: the API's alwaysForMs (undefined: as long as the gateway keeps grants). */
const ALWAYS_FOR: [string, number | undefined, string][] = [
  ['1h', HOUR, '1 hour'],
  ['8h', 8 * HOUR, '8 hours'],
  ['24h', 24 * HOUR, '24 hours'],
  ['7d', 7 * 24 * HOUR, '7 days'],
  ['restart', undefined, 'until the gateway restarts'],
];

/**
 * Whom "Approve always" covers: the gateway remembers it for the caller's principal, else its HTTP session (a
 * host that connects again has a new one, and is asked again), else for every anonymous caller alike.
 */
function alwaysWhom(caller: ListedApproval['caller']): string {
  if (caller.principal !== undefined) return `caller ${caller.principal}`;
  if (caller.sessionId !== undefined) return `${callerName(caller)} only`;
  return 'any anonymous caller';
}

/** Who a grant of "Approve always" covers, with the tool: the key of `alwaysWhom`'s caller. */
function grantKey({ upstream, tool, caller }: ListedApproval): string {
  const whom =
    caller.principal !== undefined
      ? `p:${caller.principal}`
      : caller.sessionId !== undefined
        ? `s:${caller.sessionId}`
        : 'anonymous';
  return JSON.stringify([upstream, tool, whom]);
}

/**
 * Who gave "Approve always" (among the latest decisions) that covers a pending approval's tool and caller: it
 * covers the calls that come after it, not this one, which asked before and still waits for a decision.
 */
function grantsGiven(decided: readonly Decided[]): Map<string, string> {
  const given = new Map<string, string>();
  for (const { approval, outcome } of decided) {
    if (outcome.decision !== 'approved' || !outcome.always) continue;
    const key = grantKey(approval);
    if (!given.has(key)) given.set(key, outcome.decidedBy ?? 'someone');
  }
  return given;
}

/** What a person did to a card: kept by approval id while the approval is listed. */
interface CardState {
  reason: string;
  alwaysFor: string;
  raw: boolean;
  /** The arguments, too long to list, loaded when asked for. */
  loaded: JsonObject | undefined;
}
const newCardState = (): CardState => ({ reason: '', alwaysFor: '1h', raw: false, loaded: undefined });

/**
 * The cards' states, by approval id: the page's, not the view's (another view shown and this one again finds
 * them); those of approvals no longer listed, nor opened alone, go as the list changes, and all of them at
 * sign-out.
 */
const cards = new RowStates(newCardState);
/** Cards opened alone (`#/approvals/ID`) lately, oldest first: kept though the list may not hold them. */
const alone: string[] = [];
/** Cards opened alone whose states are kept at most (the list's are kept besides). */
const ALONE_KEPT = 20;
let listed: readonly ListedApproval[] | undefined;
let settled: readonly Decided[] | undefined;
live.subscribe(({ approvals, decided, session }) => {
  const now = session ? approvals : [];
  const done = session ? decided : [];
  if (now === listed && done === settled) return;
  listed = now;
  settled = done;
  if (!session) alone.length = 0;
  // Settled: a card opened alone goes too.
  for (const { approval } of done) {
    const at = alone.indexOf(approval.id);
    if (at !== -1) alone.splice(at, 1);
  }
  cards.keep([...now.map((approval) => approval.id), ...alone]);
});

/** The state of a card opened alone: kept while it waits (listed or not), among the latest so opened. */
function aloneCard(id: string): CardState {
  const at = alone.indexOf(id);
  if (at !== -1) alone.splice(at, 1);
  alone.push(id);
  if (alone.length > ALONE_KEPT) alone.shift();
  return cards.of(id);
}

const ApprovalCard = memo(function ApprovalCard({
  approval,
  kept,
  canDecide,
  place,
  of,
  grantedBy,
}: {
  approval: ListedApproval;
  kept: CardState;
  canDecide: boolean;
  /** Who gave "Approve always" for this tool and caller after this approval asked (`grantsGiven`). */
  grantedBy?: string | undefined;
  /** Its place in the list, and the list's length (most cards are not drawn). */
  place: number;
  of: number;
}) {
  const [reason, setReason] = useRowState(kept, 'reason');
  const [alwaysFor, setAlwaysFor] = useRowState(kept, 'alwaysFor');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [raw, setRaw] = useRowState(kept, 'raw');
  // The arguments: listed, or (too long to list) loaded when asked for.
  const [loaded, setLoaded] = useRowState(kept, 'loaded');
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
        // Decided elsewhere, expired or withdrawn (a decision event this page missed): the card goes.
        if (e instanceof ApiError && e.code === 'APPROVAL_SETTLED') live.settled(approval.id);
        else setError(e.message);
      },
    );
  };
  const forMs = ALWAYS_FOR.find(([id]) => id === alwaysFor)?.[1];
  const headingId = `approval-${approval.id}`;
  // Decided (here or elsewhere) with the focus in it: the next card takes it, else the heading.
  const card = useFocusHandoff<HTMLLIElement>(() => document.getElementById('approvals-heading'), true);
  return (
    <li
      ref={card}
      tabIndex={-1}
      class="card approval"
      // Named with its id too: cards of one tool differ by it (and their arguments).
      aria-labelledby={`${headingId} ${headingId}-id`}
      data-approval={approval.id}
      data-row={approval.id}
      aria-posinset={place}
      aria-setsize={of}
    >
      <header>
        <h3 id={headingId}>
          <UpstreamText text={approval.exposedName} />{' '}
          <span class="muted">
            (<UpstreamText text={approval.upstream} />)
          </span>
        </h3>
        {approval.title !== undefined && (
          <span class="claimed-title">
            titled by the upstream: &ldquo;
            <UpstreamText text={approval.title} />
            &rdquo;
          </span>
        )}
        <Countdown expiresAt={approval.expiresAt} />
      </header>
      <p class="meta">
        <span title={approval.id} id={`${headingId}-id`}>
          id: {approval.id.slice(0, 8)}
        </span>{' '}
        · <span>caller: {callerName(approval.caller)}</span>{' '}
        <span class="meta-tool">· tool: {approval.exposedName}</span>{' '}
        <AnnotationBadges annotations={approval.annotations} />
      </p>
      <p class="meta">
        why: <UpstreamText text={approval.reason} />
      </p>
      {approval.description && (
        <p class="description">
          <UpstreamText text={approval.description} />
        </p>
      )}
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
      {grantedBy !== undefined && (
        <p class="notice">
          {grantedBy} chose “Approve always” for this tool and caller: that covers its next calls, not this
          one, which asked before. Decide it here.
        </p>
      )}
      {canDecide ? (
        <div class="decide">
          <button
            type="button"
            class="primary"
            disabled={busy || args === undefined}
            aria-describedby={`${headingId} ${headingId}-id`}
            onClick={() => decide(() => api.approve(approval.id, approval.argumentsDigest, false))}
          >
            Approve
          </button>
          <span class="always">
            <button
              type="button"
              disabled={busy || args === undefined}
              aria-describedby={`${headingId}-always ${headingId} ${headingId}-id`}
              onClick={() => decide(() => api.approve(approval.id, approval.argumentsDigest, true, forMs))}
            >
              Approve always
            </button>
            <label>
              <span class="visually-hidden">Approve always for</span>
              <select value={alwaysFor} onChange={(e) => setAlwaysFor((e.target as HTMLSelectElement).value)}>
                {ALWAYS_FOR.map(([id, ms, label]) => (
                  <option key={id} value={id}>
                    {ms === undefined ? label : `for ${label}`}
                  </option>
                ))}
              </select>
            </label>
            <span class="muted" id={`${headingId}-always`}>
              this tool, {alwaysWhom(approval.caller)}:{' '}
              {forMs === undefined
                ? 'until the gateway restarts (24 hours on Redis)'
                : `for ${ALWAYS_FOR.find(([id]) => id === alwaysFor)![2]}`}
            </span>
          </span>
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
            aria-describedby={`${headingId} ${headingId}-id`}
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
});

/** A card's height with the list's gap, before it is measured (px). */
const CARD_PX = 320;
const approvalKey = (approval: ListedApproval) => approval.id;

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

/**
 * One approval (`#/approvals/ID`, where a waiting call's row links): its card, whether or not the list holds
 * it (past what the page keeps, it is read alone), its outcome once settled, and the way to the whole list.
 * The card takes the focus as it shows, so a keyboard goes on from it.
 */
function OneApproval({ id }: { id: string }) {
  const { approvals, decided, session } = useLive();
  const listed = approvals.find((a) => a.id === id);
  const settled = decided.find((d) => d.approval.id === id);
  const [read, setRead] = useState<ListedApproval | Decided | { error: string } | undefined>();
  useEffect(() => {
    if (listed || settled) return;
    let current = true;
    api.approval(id).then(
      (stored) => {
        if (!current) return;
        setRead(stored.outcome ? { approval: stored.approval, outcome: stored.outcome } : stored.approval);
      },
      (e: Error) => current && setRead({ error: e.message }),
    );
    return () => void (current = false);
  }, [id, listed === undefined, settled === undefined]);
  const shown = settled ?? listed ?? read;
  const pending = shown && !('outcome' in shown) && !('error' in shown) ? shown : undefined;
  useEffect(() => {
    if (pending)
      document.querySelector<HTMLElement>(`li[data-approval="${CSS.escape(pending.id)}"]`)?.focus();
  }, [pending?.id]);
  return (
    <section aria-labelledby="approvals-heading">
      <h2 id="approvals-heading" tabIndex={-1}>
        Approval {id.slice(0, 8)}
      </h2>
      <p>
        <a href="#/approvals">All pending approvals</a>
      </p>
      {shown === undefined ? (
        <p class="muted">Loading…</p>
      ) : 'error' in shown ? (
        <p class="error-text" role="alert">
          {shown.error}
        </p>
      ) : 'outcome' in shown ? (
        <p class="notice" role="status">
          <UpstreamText text={shown.approval.exposedName} />: <UpstreamText text={outcomeText(shown)} />.
        </p>
      ) : (
        <ul class="cards" aria-label="approval">
          <ApprovalCard
            approval={shown}
            kept={aloneCard(shown.id)}
            canDecide={session?.canDecide === true}
            place={1}
            of={1}
            grantedBy={grantsGiven(decided).get(grantKey(shown))}
          />
        </ul>
      )}
    </section>
  );
}

/** The pending approvals, or one of them (`only`: its id). */
export function Approvals({ only }: { only?: string | undefined } = {}) {
  return only === undefined ? <AllApprovals /> : <OneApproval id={only} />;
}

function AllApprovals() {
  const {
    approvals,
    unlistedApprovals,
    approvalsUnread,
    approvalsFailed,
    decided,
    session,
    connection,
    streamProblem,
  } = useLive();
  const unavailable = connection !== 'live' && streamProblem !== undefined;
  const failed = unavailable && approvalsFailed !== undefined;
  const granted = useMemo(() => grantsGiven(decided), [decided]);
  return (
    <section aria-labelledby="approvals-heading">
      <h2 id="approvals-heading" tabIndex={-1}>
        Approvals
      </h2>
      {/* One notice: the list below was fetched, or it could not be read (not both). */}
      {failed ? (
        <p class="notice error-text" role="alert">
          Live updates unavailable ({streamProblem}), and the pending approvals could not be read (
          {approvalsFailed}); trying again.
        </p>
      ) : (
        unavailable && (
          <p class="notice error-text" role="alert">
            Live updates unavailable ({streamProblem}): the list below was fetched once and is fetched again
            on each retry.
          </p>
        )
      )}
      {approvalsUnread !== undefined ? (
        <p class="notice error-text" role="alert">
          Showing {approvals.length} of {approvals.length + unlistedApprovals} pending: the rest could not be
          read ({approvalsUnread}); trying again.
        </p>
      ) : (
        unlistedApprovals > 0 && (
          <p class="notice" role="status">
            Showing {approvals.length} of {approvals.length + unlistedApprovals} pending (the oldest first:
            decide some to see the rest).
          </p>
        )
      )}
      {approvals.length === 0 ? (
        !failed && (
          <p class="empty">
            {unavailable
              ? 'Nothing waited for a decision when last fetched.'
              : 'Nothing waits for a decision.'}
          </p>
        )
      ) : (
        <WindowedList
          items={approvals}
          keyOf={approvalKey}
          estimate={CARD_PX}
          class="cards"
          label="pending approvals"
          render={(approval, index) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              kept={cards.of(approval.id)}
              canDecide={session?.canDecide === true}
              place={index + 1}
              of={approvals.length}
              grantedBy={granted.get(grantKey(approval))}
            />
          )}
        />
      )}
      <h3>Latest decisions</h3>
      {decided.length === 0 ? (
        <p class="empty">None yet.</p>
      ) : (
        <ul class="decided" role="list" aria-label="latest decisions">
          {decided.map((d) => (
            <li key={d.approval.id} class={`decision ${d.outcome.decision}`} data-approval={d.approval.id}>
              <strong>
                <UpstreamText text={d.approval.exposedName} />
              </strong>{' '}
              <span class="muted" title={d.approval.id}>
                id: {d.approval.id.slice(0, 8)}
              </span>{' '}
              <span class="outcome">
                <UpstreamText text={outcomeText(d)} />
              </span>{' '}
              <span class="muted">
                <LocalTime iso={d.outcome.decidedAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
