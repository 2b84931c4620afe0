// What the console knows, kept live: the gateway's event stream (server-sent events) updates it as things
// happen, and each (re)connection starts from a snapshot and reloads the lists, so that a gateway restart
// or a lost connection ends with the same state as a fresh page. Views read it through `useLive`.
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  type ApprovalOutcome,
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
}

const KEPT = { decided: 50, calls: 500, audit: 1000, warnings: 20 };

type Listener = (state: LiveState) => void;

export class Live {
  state: LiveState = {
    session: undefined,
    connection: 'connecting',
    approvals: [],
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
  #failures = 0;

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Called for each approval that starts waiting (for browser notifications). */
  onPending(listener: (approval: ListedApproval) => void): () => void {
    this.#pendingListeners.add(listener);
    return () => void this.#pendingListeners.delete(listener);
  }

  set(patch: Partial<LiveState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.#listeners) listener(this.state);
  }

  /** Asks who is signed in; connects when someone is. */
  async start(): Promise<void> {
    try {
      const session = await api.session();
      this.set({ session: { by: session.by, canDecide: session.canDecide } });
      this.#connect();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.set({ session: null });
      else this.#later(() => void this.start());
    }
  }

  stop(): void {
    this.#source?.close();
    this.#source = undefined;
    clearTimeout(this.#retry);
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
        handle(JSON.parse((event as MessageEvent<string>).data) as never);
      });
    source.onopen = () => {
      this.#failures = 0;
    };
    source.onerror = () => {
      this.set({ connection: 'offline' });
      // Closed for good (an HTTP error such as 401): ask who we are, then reconnect or sign out.
      if (source.readyState === EventSource.CLOSED) this.#later(() => void this.start());
    };
    on('snapshot', (data: { approvals: ListedApproval[]; upstreams: UpstreamView[] }) => {
      this.set({ connection: 'live', approvals: data.approvals, upstreams: data.upstreams });
      void this.reload();
    });
    on('approval.pending', ({ approval }: { approval: ListedApproval }) => {
      if (this.state.approvals.some((a) => a.id === approval.id)) return;
      this.set({ approvals: [...this.state.approvals, approval] });
      for (const listener of this.#pendingListeners) listener(approval);
    });
    on('approval.decided', (decided: Decided) => {
      this.set({
        approvals: this.state.approvals.filter((a) => a.id !== decided.approval.id),
        decided: [decided, ...this.state.decided].slice(0, KEPT.decided),
      });
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
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.set({ session: null });
    }
  }
}

export const live = new Live();

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
