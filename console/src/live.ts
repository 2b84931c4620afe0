// What the console knows, kept live: the gateway's event stream (server-sent events) updates it as things
// happen, and each (re)connection starts from a snapshot and reloads the lists, so that a gateway restart
// or a lost connection ends with the same state as a fresh page. Views read it through `useLive`, which
// re-renders at most once per animation frame however many events came.
//
// A dead link (a laptop that slept, a VPN that switched, a NAT that forgot) gives no error for minutes:
// the gateway sends a `ping` event every KEEP_ALIVE_MS, and SILENCE_MS without any event closes the stream
// and opens another; so does the browser going back online, and the page becoming visible after a silence.
// When the stream is refused (too many streams, say), the pending approvals are fetched anyway and the
// page says that live updates are unavailable, and why. A 401 anywhere ends the session here too: back to
// the sign-in form.
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  onUnauthorized,
  type ApprovalOutcome,
  type ApprovalsListing,
  type CallSummary,
  type ExposedToolView,
  type GatewayAuditRecord,
  type ListedApproval,
  type Session,
  type UpstreamView,
} from './api.js';

export interface Decided {
  approval: ListedApproval;
  outcome: ApprovalOutcome;
}

export interface LiveState {
  /** undefined while unknown, null when signed out. */
  session: Session | null | undefined;
  connection: 'connecting' | 'live' | 'offline';
  approvals: ListedApproval[];
  /** Pending approvals the gateway's listing left out (it lists at most so many: its Redis budget). */
  unlistedApprovals: number;
  /** The latest settled approvals, newest first. */
  decided: Decided[];
  upstreams: UpstreamView[];
  tools: ExposedToolView[];
  /** Newest first. */
  calls: CallSummary[];
  /** Newest first. */
  audit: GatewayAuditRecord[];
  warnings: string[];
  /** How the last sign-in to an upstream ended (the console's page after the authorization server). */
  signInNotice: { ok: boolean; text: string } | undefined;
  /** Why the sign-in form shows (a session that ended), when not a first visit. */
  signedOut?: string | undefined;
  /** Why the event stream is not there (the gateway's answer), while the lists are fetched instead. */
  streamProblem?: string | undefined;
}

const KEPT = { decided: 50, calls: 500, audit: 1000, warnings: 20 };

/** The gateway's keep-alive interval: a `ping` event this often (src/gateway/event-streams.ts). */
export const KEEP_ALIVE_MS = 15_000;
/** Silence (no event of any kind) after which the stream is taken for dead: two and a half pings. */
export const SILENCE_MS = KEEP_ALIVE_MS * 2.5;
export const SESSION_ENDED = 'Your session ended; sign in again.';

type Listener = (state: LiveState) => void;

export class Live {
  state: LiveState = {
    session: undefined,
    connection: 'connecting',
    approvals: [],
    unlistedApprovals: 0,
    decided: [],
    upstreams: [],
    tools: [],
    calls: [],
    audit: [],
    warnings: [],
    signInNotice: undefined,
  };
  readonly #listeners = new Set<Listener>();
  readonly #pendingListeners = new Set<(approval: ListedApproval) => void>();
  #source: EventSource | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  #heardAt = 0;
  #failures = 0;
  #flushing = false;
  #watching = false;

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Called for each approval that starts waiting (for browser notifications). */
  onPending(listener: (approval: ListedApproval) => void): () => void {
    this.#pendingListeners.add(listener);
    return () => void this.#pendingListeners.delete(listener);
  }

  /** Changes the state now; listeners hear of it once per animation frame (events come in bursts). */
  set(patch: Partial<LiveState>): void {
    this.state = { ...this.state, ...patch };
    if (this.#flushing) return;
    this.#flushing = true;
    const flush = () => {
      if (!this.#flushing) return;
      this.#flushing = false;
      for (const listener of this.#listeners) listener(this.state);
    };
    // A hidden page gets no animation frames: the timer then (slowed, but it runs).
    requestAnimationFrame(flush);
    setTimeout(flush, 100);
  }

  /** Asks who is signed in; connects when someone is. */
  async start(): Promise<void> {
    this.#watch();
    try {
      const session = await api.session();
      this.set({ session: { by: session.by, canDecide: session.canDecide }, signedOut: undefined });
      this.#connect();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        this.signedOut(this.state.session ? SESSION_ENDED : undefined);
      else this.#later(() => void this.start());
    }
  }

  stop(): void {
    this.#source?.close();
    this.#source = undefined;
    clearTimeout(this.#retry);
    clearTimeout(this.#watchdog);
  }

  /** Back to the sign-in form, saying why when there is a reason. */
  signedOut(message?: string): void {
    this.stop();
    this.set({ session: null, signedOut: message, connection: 'connecting' });
  }

  /** An approval the gateway says is settled (409): its card goes; its outcome is listed when it can be read. */
  settled(id: string): void {
    this.set({ approvals: this.state.approvals.filter((a) => a.id !== id) });
    api.approval(id).then(
      ({ approval, outcome }) => {
        if (!outcome || this.state.decided.some((d) => d.approval.id === id)) return;
        this.set({ decided: [{ approval, outcome }, ...this.state.decided].slice(0, KEPT.decided) });
      },
      () => undefined,
    );
  }

  /** Reconnects when the browser is back online, or the page visible again after a silence. */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    const again = () => {
      if (this.state.session) this.#connect();
    };
    addEventListener('online', again);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState !== 'visible' || !this.state.session) return;
      if (this.state.connection !== 'live' || Date.now() - this.#heardAt > KEEP_ALIVE_MS) again();
    });
  }

  /** Something came on the stream: it lives; the next silence is counted from now. */
  #heard(): void {
    this.#heardAt = Date.now();
    clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(() => {
      // Nothing for SILENCE_MS, not even a ping: the link is dead though no error came. Start over.
      this.set({ connection: 'offline' });
      this.#connect();
    }, SILENCE_MS);
  }

  /** The event stream is refused: the pending approvals all the same, and why there are no live updates. */
  async #withoutStream(): Promise<void> {
    let why = 'the event stream is unavailable';
    try {
      const controller = new AbortController();
      const response = await fetch('/api/events', {
        headers: { accept: 'text/event-stream' },
        credentials: 'same-origin',
        cache: 'no-store',
        signal: controller.signal,
      });
      if (response.ok) controller.abort();
      else {
        const data = (await response.json().catch(() => undefined)) as
          { error?: { message?: string } } | undefined;
        why = data?.error?.message ?? `the gateway answered ${response.status}`;
      }
    } catch {
      // unreachable: the message above
    }
    try {
      const listing = await api.approvals();
      if (this.#source?.readyState === EventSource.OPEN) return; // back meanwhile: the snapshot has them
      this.set({ ...listed(listing), streamProblem: why });
    } catch {
      // a 401 went to the sign-in form; otherwise the next try
    }
  }

  #later(run: () => void): void {
    clearTimeout(this.#retry);
    const delay = Math.min(500 * 2 ** this.#failures++, 10_000);
    this.#retry = setTimeout(run, delay);
  }

  #connect(): void {
    this.stop();
    const source = new EventSource('/api/events');
    this.#source = source;
    const on = (type: string, handle: (data: never) => void) =>
      source.addEventListener(type, (event) => {
        if (this.#source !== source) return; // a stream given up on
        this.#heard();
        handle(JSON.parse((event as MessageEvent<string>).data) as never);
      });
    this.#heard();
    source.onopen = () => {
      this.#failures = 0;
      this.#heard();
    };
    source.onerror = () => {
      if (this.#source !== source) return;
      this.set({ connection: 'offline' });
      // Closed for good (an HTTP error such as 401 or 503): the approvals without the stream, and why; ask
      // who we are, then reconnect or sign out.
      if (source.readyState === EventSource.CLOSED) {
        clearTimeout(this.#watchdog);
        void this.#withoutStream();
        this.#later(() => void this.start());
      }
    };
    source.addEventListener('ping', () => {
      if (this.#source === source) this.#heard();
    });
    on('snapshot', (data: ApprovalsListing & { upstreams: UpstreamView[] }) => {
      this.set({
        connection: 'live',
        ...listed(data),
        upstreams: data.upstreams,
        streamProblem: undefined,
      });
      void this.reload();
    });
    on('approval.pending', ({ approval }: { approval: ListedApproval }) => {
      if (this.state.approvals.some((a) => a.id === approval.id)) return;
      this.set({ approvals: [...this.state.approvals, approval] });
      for (const listener of this.#pendingListeners) listener(approval);
    });
    on('approval.decided', (decided: Decided) => {
      const { approvals, unlistedApprovals } = this.state;
      const listedOne = approvals.some((a) => a.id === decided.approval.id);
      this.set({
        approvals: approvals.filter((a) => a.id !== decided.approval.id),
        // One the listing left out: one fewer unlisted.
        unlistedApprovals: listedOne ? unlistedApprovals : Math.max(0, unlistedApprovals - 1),
        decided: [decided, ...this.state.decided].slice(0, KEPT.decided),
      });
      // A listed one went while others were left out: the next of them are listed now.
      if (listedOne && unlistedApprovals > 0) void this.#relist();
    });
    on('call.started', ({ call }: { call: CallSummary['call'] }) => {
      const summary: CallSummary = {
        call,
        startedAt: new Date().toISOString(),
        state: 'running',
        hasResult: false,
      };
      this.set({
        calls: [summary, ...this.state.calls.filter((c) => c.call.id !== call.id)].slice(0, KEPT.calls),
      });
    });
    on('call.progress', (event: { callId: number; progress: number; total?: number; message?: string }) => {
      const { callId, progress, total, message } = event;
      this.#updateCall(callId, {
        progress: {
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      });
    });
    on(
      'call.finished',
      (event: Pick<CallSummary, 'decision' | 'outcome' | 'durationMs'> & { callId: number }) => {
        const { callId, ...rest } = event;
        this.#updateCall(callId, { ...rest, state: 'finished' });
      },
    );
    on('upstream.status', () => void this.#refresh('upstreams'));
    on('tools.changed', () => void this.#refresh('tools'));
    on('audit', ({ record }: { record: GatewayAuditRecord }) => {
      this.set({ audit: [record, ...this.state.audit].slice(0, KEPT.audit) });
    });
    on('warning', ({ message }: { message: string }) => {
      this.set({ warnings: [message, ...this.state.warnings].slice(0, KEPT.warnings) });
    });
  }

  #updateCall(id: number, patch: Partial<CallSummary>): void {
    this.set({ calls: this.state.calls.map((c) => (c.call.id === id ? { ...c, ...patch } : c)) });
  }

  async #refresh(what: 'upstreams' | 'tools'): Promise<void> {
    try {
      if (what === 'upstreams') this.set({ upstreams: (await api.upstreams()).upstreams });
      else this.set({ tools: (await api.tools()).tools });
    } catch {
      // the next snapshot reloads everything
    }
  }

  /** Reloads every list (after each snapshot: a fresh page, a reconnection). */
  /** Lists the pending approvals again, with those announced meanwhile, without those decided meanwhile. */
  async #relist(): Promise<void> {
    const before = new Set(this.state.approvals.map((a) => a.id));
    try {
      const listing = await api.approvals();
      const fetched = new Set(listing.approvals.map((a) => a.id));
      const since = this.state.approvals.filter((a) => !before.has(a.id) && !fetched.has(a.id));
      const gone = new Set(this.state.decided.map((d) => d.approval.id));
      const next = listed(listing);
      this.set({ ...next, approvals: [...next.approvals.filter((a) => !gone.has(a.id)), ...since] });
    } catch {
      // the next decision or snapshot lists them
    }
  }

  async reload(): Promise<void> {
    try {
      const [tools, calls, audit] = await Promise.all([api.tools(), api.calls(), api.audit()]);
      // A call the event stream saw finish meanwhile stays finished.
      const seen = new Map(this.state.calls.map((c) => [c.call.id, c]));
      const merged = calls.calls.map((c) => {
        const known = seen.get(c.call.id);
        return known?.state === 'finished' && c.state === 'running' ? known : c;
      });
      const listed = new Set(merged.map((c) => c.call.id));
      const newer = this.state.calls.filter(
        (c) => !listed.has(c.call.id) && c.call.id > (merged[0]?.call.id ?? 0),
      );
      this.set({ tools: tools.tools, calls: [...newer, ...merged], audit: [...audit.records].reverse() });
    } catch {
      // a 401 went to the sign-in form (onUnauthorized); otherwise the next snapshot reloads
    }
  }
}

export const live = new Live();
onUnauthorized(() => {
  if (live.state.session) live.signedOut(SESSION_ENDED);
});

/** The live state, re-rendering the component on every change. */
export function useLive(): LiveState {
  const [state, setState] = useState(live.state);
  useEffect(() => {
    setState(live.state);
    return live.subscribe(setState);
  }, []);
  return state;
}

/** The current time, ticking every `ms` (for countdowns and elapsed times). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** The approvals of a listing, and how many it left out. */
function listed({ approvals, total }: ApprovalsListing): Pick<LiveState, 'approvals' | 'unlistedApprovals'> {
  return { approvals, unlistedApprovals: Math.max(0, total - approvals.length) };
}
