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

/**
 * What the page keeps at most: the calls as many as a call log holds when configured large (10,000; 500 by
 * default), drawn a window at a time (WindowedList); the pending approvals read page after page up to
 * `approvals` (the rest counted, listed as those are decided).
 */
const KEPT = { decided: 50, calls: 10_000, approvals: 2_000, audit: 1000, warnings: 20 };
/** Pending approvals read a page at a time (the gateway's default page). */
const PAGE = 500;
/** Call events waiting for the next frame at most; beyond, they are applied at once (a hidden tab, say). */
const MAX_QUEUED_CALL_EVENTS = 2_000;

/** A call event as queued until the next frame: a call that starts, or a change to one. */
type CallEvent = { started: CallSummary } | { id: number; patch: Partial<CallSummary> };

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
  #callEvents: CallEvent[] = [];
  /** The pending approvals' next page (the last one read's `nextCursor`); undefined: all are read. */
  #cursor: string | undefined;
  #generation = 0;
  #reading = false;
  #readAgain = false;
  /** Approvals announced while older ones waited unlisted: listed by the pages, or after the last one. */
  readonly #arrived = new Map<string, ListedApproval>();

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
    this.#schedule();
  }

  #schedule(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    const flush = () => {
      if (!this.#flushing) return;
      this.#flushing = false;
      this.#applyCalls();
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
      this.#firstPage(listing);
      this.set({ streamProblem: why });
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
      this.#firstPage(data);
      this.set({ connection: 'live', upstreams: data.upstreams, streamProblem: undefined });
      void this.reload();
    });
    on('approval.pending', ({ approval }: { approval: ListedApproval }) => {
      const { approvals, unlistedApprovals } = this.state;
      if (approvals.some((a) => a.id === approval.id)) return;
      // Older ones wait unlisted: this one is listed after them, by the pages still to read.
      if (unlistedApprovals > 0 || this.#cursor !== undefined) {
        if (this.#arrived.size < KEPT.approvals) this.#arrived.set(approval.id, approval);
        this.set({ unlistedApprovals: unlistedApprovals + 1 });
      } else this.set({ approvals: [...approvals, approval] });
      for (const listener of this.#pendingListeners) listener(approval);
    });
    on('approval.decided', (decided: Decided) => {
      const { approvals, unlistedApprovals } = this.state;
      const listedOne = approvals.some((a) => a.id === decided.approval.id);
      this.#arrived.delete(decided.approval.id);
      this.set({
        approvals: approvals.filter((a) => a.id !== decided.approval.id),
        // One the listing left out: one fewer unlisted.
        unlistedApprovals: listedOne ? unlistedApprovals : Math.max(0, unlistedApprovals - 1),
        decided: [decided, ...this.state.decided].slice(0, KEPT.decided),
      });
      // A listed one went while others were left out: the next of them are listed now.
      if (listedOne && unlistedApprovals > 0) void this.#readOn();
    });
    on('call.started', ({ call }: { call: CallSummary['call'] }) => {
      const started = new Date().toISOString();
      this.#queueCall({ started: { call, startedAt: started, state: 'running', hasResult: false } });
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
    this.#queueCall({ id, patch });
  }

  /** Queues a call event for the next frame, where a burst of them is applied in one pass. */
  #queueCall(event: CallEvent): void {
    this.#callEvents.push(event);
    if (this.#callEvents.length >= MAX_QUEUED_CALL_EVENTS) this.#applyCalls();
    this.#schedule();
  }

  /** The queued call events, applied to the calls in one pass (linear in the calls and the events). */
  #applyCalls(): void {
    const events = this.#callEvents;
    if (events.length === 0) return;
    this.#callEvents = [];
    const started = new Map<number, CallSummary>();
    const patches = new Map<number, Partial<CallSummary>>();
    for (const event of events) {
      if ('started' in event) {
        const id = event.started.call.id;
        started.delete(id);
        started.set(id, event.started);
        patches.delete(id);
        continue;
      }
      const fresh = started.get(event.id);
      if (fresh) started.set(event.id, { ...fresh, ...event.patch });
      else patches.set(event.id, { ...patches.get(event.id), ...event.patch });
    }
    const kept = this.state.calls
      .filter((c) => !started.has(c.call.id))
      .map((c) => {
        const patch = patches.get(c.call.id);
        return patch ? { ...c, ...patch } : c;
      });
    const calls = [...[...started.values()].reverse(), ...kept].slice(0, KEPT.calls);
    this.state = { ...this.state, calls };
  }

  async #refresh(what: 'upstreams' | 'tools'): Promise<void> {
    try {
      if (what === 'upstreams') this.set({ upstreams: (await api.upstreams()).upstreams });
      else this.set({ tools: (await api.tools()).tools });
    } catch {
      // the next snapshot reloads everything
    }
  }

  /**
   * A first page of the pending approvals (the snapshot, or fetched): they are listed, and the next pages
   * read (`#readOn`) up to what the page keeps.
   */
  #firstPage(listing: ApprovalsListing): void {
    this.#generation++;
    this.#arrived.clear();
    this.#cursor = listing.nextCursor;
    const approvals = listing.approvals.slice(0, KEPT.approvals);
    this.set({ approvals, unlistedApprovals: Math.max(0, listing.total - approvals.length) });
    if (this.#cursor !== undefined) void this.#readOn();
  }

  /**
   * The pages after the last read (its `nextCursor`, a stable place: approvals decided meanwhile shift
   * nothing), until the page holds `KEPT.approvals` or none are left; one reading at a time.
   */
  async #readOn(): Promise<void> {
    if (this.#reading) return void (this.#readAgain = true);
    this.#reading = true;
    const generation = this.#generation;
    try {
      do {
        this.#readAgain = false;
        const room = KEPT.approvals - this.state.approvals.length;
        const cursor = this.#cursor;
        if (room <= 0 || cursor === undefined) break;
        const listing = await api.approvals(cursor, Math.min(room, PAGE));
        if (generation !== this.#generation) return; // a new snapshot lists them
        // The same cursor again would go round forever: the page's own is the end.
        this.#cursor = listing.nextCursor === cursor ? undefined : listing.nextCursor;
        const held = new Set(this.state.approvals.map((a) => a.id));
        const gone = new Set(this.state.decided.map((d) => d.approval.id));
        // After the last page, those announced meanwhile that it did not list.
        const arrived = this.#cursor === undefined ? [...this.#arrived.values()] : [];
        for (const a of listing.approvals) this.#arrived.delete(a.id);
        if (this.#cursor === undefined) this.#arrived.clear();
        const fresh = [...listing.approvals, ...arrived].filter(
          (a) => !held.has(a.id) && !gone.has(a.id) && held.add(a.id),
        );
        const approvals = [...this.state.approvals, ...fresh].slice(0, KEPT.approvals);
        const unlisted = this.#cursor === undefined ? 0 : Math.max(0, listing.total - approvals.length);
        this.set({ approvals, unlistedApprovals: unlisted });
      } while (this.#readAgain || this.state.approvals.length < KEPT.approvals);
    } catch {
      // the next decision or snapshot reads on
    } finally {
      this.#reading = false;
    }
  }

  async reload(): Promise<void> {
    try {
      const [tools, calls, audit] = await Promise.all([api.tools(), api.calls(KEPT.calls), api.audit()]);
      this.#applyCalls(); // the events that came meanwhile, before the merge
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
