// What the console knows, kept live: the gateway's event stream (server-sent events) updates it as things
// happen, and each (re)connection starts from a snapshot and reloads the lists, so that a gateway restart
// or a lost connection ends with the same state as a fresh page. Views read it through `useLive`, which
// re-renders at most once per animation frame however many events came.
//
// A stream silent for too long is taken for dead and another opened (StreamWatchdog). When the stream is
// refused (too many streams, say), the pending approvals and the calls are fetched anyway and the page says
// that live updates are unavailable, and why. A list that could not be read is said so on the page and read
// again (backing off to 10 s between tries). A 401 anywhere ends the session here too: back to the sign-in
// form.
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  onUnauthorized,
  type ApprovalsListing,
  type CallSummary,
  type ExposedToolView,
  type GatewayAuditRecord,
  type ListedApproval,
  type Session,
  type UpstreamView,
} from './api.js';
import { ApprovalPages, type ApprovalsState, type Decided } from './approval-pages.js';
import { CallEvents } from './call-events.js';
import { StreamWatchdog } from './stream-watchdog.js';

export type { Decided } from './approval-pages.js';

export interface LiveState extends ApprovalsState {
  /** undefined while unknown, null when signed out. */
  session: Session | null | undefined;
  connection: 'connecting' | 'live' | 'offline';
  upstreams: UpstreamView[];
  tools: ExposedToolView[];
  /** Newest first. */
  calls: CallSummary[];
  /**
   * The running calls not shown: those the gateway's listing left out (older than the calls listed, past the
   * running ones it lists), then one more for each running call the page cut, one fewer for each not shown
   * that finished.
   */
  runningOmitted: number;
  /** Newest first. */
  audit: GatewayAuditRecord[];
  warnings: string[];
  /** How the last sign-in to an upstream ended (the console's page after the authorization server). */
  signInNotice: { ok: boolean; text: string } | undefined;
  /** Why the sign-in form shows (a session that ended), when not a first visit. */
  signedOut?: string | undefined;
  /** Why the event stream is not there (the gateway's answer), while the lists are fetched instead. */
  streamProblem?: string | undefined;
  /** Why the pending approvals could not be read without the event stream (read again); undefined once they are. */
  approvalsFailed?: string | undefined;
  /** Why the calls (with the tools and the audit records) could not be read (read again); undefined once they are. */
  callsUnread?: string | undefined;
}

/**
 * What the page keeps at most: the calls as many as the gateway's call log keeps (its `maxCalls`, 500 by
 * default, as `GET /api/calls` says), 10,000 at most and until it is known, drawn a window at a time
 * (WindowedList). (The pending approvals: ApprovalPages.)
 */
const KEPT = { calls: 10_000, audit: 1000, warnings: 20 };
/** Lists that could not be read are read again after 0.5 s, 1 s, 2 s … 10 s at most between tries. */
const RETRY_MS = 500;
const RETRY_MAX_MS = 10_000;

/** What an error says, for the page. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
    runningOmitted: 0,
    audit: [],
    warnings: [],
    signInNotice: undefined,
  };
  readonly #listeners = new Set<Listener>();
  readonly #pendingListeners = new Set<(approval: ListedApproval) => void>();
  #source: EventSource | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  readonly #watchdog = new StreamWatchdog(() => {
    // Nothing for SILENCE_MS, not even a ping: the link is dead though no error came. Start over.
    this.set({ connection: 'offline' });
    this.#connect();
  });
  #failures = 0;
  /** The next read of the lists that could not be read, and how many reads in a row failed. */
  #reloadRetry: ReturnType<typeof setTimeout> | undefined;
  #reloadFailures = 0;
  #flushing = false;
  /** The calls kept: as many as the gateway's call log keeps, once known (an older one could not be read). */
  #keptCalls = KEPT.calls;
  /** Where the last listing of the calls ended (the gateway's marker): the next reads what changed after it. */
  #callsMarker: string | undefined;
  readonly #callEvents = new CallEvents();
  readonly #pages = new ApprovalPages(this);

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
    this.#watchdog.watch(
      () => {
        if (this.state.session) this.#connect();
      },
      () => this.state.connection === 'live',
    );
    try {
      const session = await api.session();
      // No session cookie (a first visit, signed out): the form, having asked without a 401.
      if (!session.signedIn) return this.signedOut(this.state.session ? SESSION_ENDED : this.state.signedOut);
      this.set({ session: { by: session.by, canDecide: session.canDecide }, signedOut: undefined });
      this.#connect();
    } catch (error) {
      // Not signed in: the form says why (the session ended, or what the page said before, as a used link).
      if (error instanceof ApiError && error.status === 401)
        this.signedOut(this.state.session ? SESSION_ENDED : this.state.signedOut);
      else this.#later(() => void this.start());
    }
  }

  stop(): void {
    this.#source?.close();
    this.#source = undefined;
    clearTimeout(this.#retry);
    clearTimeout(this.#reloadRetry);
    this.#watchdog.stop();
  }

  /** Back to the sign-in form, saying why when there is a reason. */
  signedOut(message?: string): void {
    this.stop();
    this.#pages.stop();
    this.set({ session: null, signedOut: message, connection: 'connecting' });
  }

  /** An approval the gateway says is settled (409): its card goes; its outcome is listed when it can be read. */
  settled(id: string): void {
    this.#pages.settled(id);
  }

  /**
   * The event stream is refused: the pending approvals and the calls all the same, and why there are no live
   * updates. An approvals read that fails is said on the page, and read again with the next try of the
   * stream (`#later`: 0.5 s doubling to 10 s); the calls are read again by `reload`.
   */
  async #withoutStream(): Promise<void> {
    const why = await api.streamRefusal();
    if (this.#source?.readyState === EventSource.OPEN) return; // back meanwhile: the snapshot has them
    this.set({ streamProblem: why });
    void this.reload();
    try {
      const listing = await api.approvals();
      if (this.#source?.readyState === EventSource.OPEN) return;
      this.#pages.firstPage(listing);
      this.set({ approvalsFailed: undefined });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return; // the sign-in form
      if (this.#source?.readyState === EventSource.OPEN) return;
      this.set({ approvalsFailed: messageOf(error) });
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
        this.#watchdog.heard();
        handle(JSON.parse((event as MessageEvent<string>).data) as never);
      });
    this.#watchdog.heard();
    source.onopen = () => {
      this.#failures = 0;
      this.#watchdog.heard();
    };
    source.onerror = () => {
      if (this.#source !== source) return;
      this.set({ connection: 'offline' });
      // Closed for good (an HTTP error such as 401 or 503): the approvals without the stream, and why; ask
      // who we are, then reconnect or sign out.
      if (source.readyState === EventSource.CLOSED) {
        this.#watchdog.stop();
        void this.#withoutStream();
        this.#later(() => void this.start());
      }
    };
    source.addEventListener('ping', () => {
      if (this.#source === source) this.#watchdog.heard();
    });
    on('snapshot', (data: ApprovalsListing & { upstreams: UpstreamView[] }) => {
      this.#pages.firstPage(data);
      this.set({
        connection: 'live',
        upstreams: data.upstreams,
        streamProblem: undefined,
        approvalsFailed: undefined,
      });
      void this.reload();
    });
    // The call an approval holds waits for a person until it is settled, however many wait (the list of
    // pending approvals is cut at what the page keeps; the calls are not).
    on('approval.pending', ({ approval }: { approval: ListedApproval }) => {
      if (approval.callId !== undefined)
        this.#queued(this.#callEvents.awaiting(approval.callId, approval.id));
      if (!this.#pages.pending(approval)) return;
      for (const listener of this.#pendingListeners) listener(approval);
    });
    on('approval.decided', (decided: Decided) => {
      const { callId } = decided.approval;
      if (callId !== undefined) this.#queued(this.#callEvents.awaiting(callId, undefined));
      this.#pages.decided(decided);
    });
    // call.started, call.progress, call.finished: queued for the next frame.
    for (const type of ['started', 'progress', 'finished'] as const)
      on(`call.${type}`, (event) => this.#queued(this.#callEvents[type](event)));
    on('upstream.status', () => void this.#refresh('upstreams'));
    on('tools.changed', () => void this.#refresh('tools'));
    on('audit', ({ record }: { record: GatewayAuditRecord }) => {
      this.set({ audit: [record, ...this.state.audit].slice(0, KEPT.audit) });
    });
    on('warning', ({ message }: { message: string }) => {
      this.set({ warnings: [message, ...this.state.warnings].slice(0, KEPT.warnings) });
    });
  }

  /** A call event was queued: applied at the next frame, or now when the queue is full. */
  #queued(full: boolean): void {
    if (full) this.#applyCalls();
    this.#schedule();
  }

  /** The queued call events, applied to the calls in one pass. */
  #applyCalls(): void {
    const calls = this.#callEvents.apply(this.state.calls, this.#keptCalls);
    if (!calls) return;
    const runningOmitted = Math.max(0, this.state.runningOmitted + this.#callEvents.omittedChange());
    this.state = { ...this.state, calls, runningOmitted };
  }

  /** The running calls the gateway's listing left out, as it says (a number from 0), else none. */
  #runningOmitted(said: unknown): number {
    this.#callEvents.omittedChange(); // what the events changed is in the gateway's count
    return typeof said === 'number' && Number.isSafeInteger(said) && said > 0 ? said : 0;
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
   * Reads the tools, the calls and the audit records again (after a snapshot, or without the stream): the calls
   * changed since the last listing when the gateway can say (`GET /api/calls?since=`), else all. A read
   * that fails is said on the page (`callsUnread`) and made again, 0.5 s doubling to 10 s between tries; a
   * 401 is the session's end (the sign-in form), not tried again.
   */
  async reload(): Promise<void> {
    clearTimeout(this.#reloadRetry);
    try {
      const since = this.#callsMarker;
      const [tools, calls, audit] = await Promise.all([
        api.tools(),
        api.calls(this.#keptCalls, since),
        api.audit(),
      ]);
      const most = calls.maxCalls;
      const known = typeof most === 'number' && Number.isSafeInteger(most) && most >= 1;
      this.#keptCalls = known ? Math.min(most, KEPT.calls) : KEPT.calls;
      // Only what changed since the last listing, when the gateway could say (else the listing, whole).
      if (this.#callsMarker === since) this.#callsMarker = calls.marker;
      this.set({
        tools: tools.tools,
        calls:
          since !== undefined && calls.whole === false
            ? this.#callEvents.changed(this.state.calls, calls.calls, this.#keptCalls)
            : this.#callEvents.merge(this.state.calls, calls.calls, this.#keptCalls),
        audit: [...audit.records].reverse(),
        runningOmitted: this.#runningOmitted(calls.runningOmitted),
        callsUnread: undefined,
      });
      this.#reloadFailures = 0;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return; // the sign-in form (onUnauthorized)
      this.set({ callsUnread: messageOf(error) });
      clearTimeout(this.#reloadRetry);
      const delay = Math.min(RETRY_MS * 2 ** this.#reloadFailures++, RETRY_MAX_MS);
      this.#reloadRetry = setTimeout(() => void this.reload(), delay);
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
