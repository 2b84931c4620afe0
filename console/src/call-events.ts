// The calls' events from the stream (a call starts, progresses, finishes) queued until the next frame, where a
// burst of them is applied to the calls in one pass; and a listing of the calls fetched merged with what the
// events said meanwhile. The calls are kept newest first: the latest `limit`, and the running calls older than
// them (`limit` at most), as the gateway's call log keeps them — a call that runs is shown however many started
// after it.
import type { CallSummary } from './api.js';

/** A call event as queued until the next frame: a call that starts, or a change to one. */
type CallEvent = { started: CallSummary } | { id: number; patch: Partial<CallSummary> };

/** Call events waiting for the next frame at most; beyond, they are applied at once (a hidden tab, say). */
const MAX_QUEUED = 2_000;
/** Calls not known yet whose approval's news is kept for when they start (the oldest forgotten past this). */
const MAX_EARLY = 2_000;

export class CallEvents {
  #events: CallEvent[] = [];
  /**
   * How the running calls not shown changed with the events applied since asked (`omittedChange`): one more
   * for each running call cut past the `limit` older, one fewer for each call not shown that finished.
   */
  #omitted = 0;
  /**
   * Whether calls not known yet wait for a person (their approval's id, or undefined once it was settled), as
   * the approval's events said before the call's `call.started` came (another instance's call: the events
   * reach this page by different ways); applied when it comes. `MAX_EARLY` at most, the oldest forgotten.
   */
  readonly #early = new Map<number, string | undefined>();

  /**
   * A call that starts, as the `call.started` event says it: placed by when the gateway says it started (its
   * clock, as its listings of calls are), not by the browser's.
   */
  started({ call, startedAt }: Pick<CallSummary, 'call' | 'startedAt'>): boolean {
    return this.#push({ started: { call, startedAt, state: 'running', hasResult: false } });
  }

  /** The latest progress of a running call. */
  progress(event: { callId: number; progress: number; total?: number; message?: string }): boolean {
    const { callId, progress, total, message } = event;
    return this.#push({
      id: callId,
      patch: {
        progress: {
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      },
    });
  }

  /**
   * A running call waits for a person (`approvalId`: its pending approval, as the `approval.pending` event
   * names the call), or no longer does (undefined: the approval was settled).
   */
  awaiting(callId: number, approvalId: string | undefined): boolean {
    return this.#push({ id: callId, patch: { awaitingApproval: approvalId } });
  }

  /** How a call ended. */
  finished(event: Pick<CallSummary, 'decision' | 'outcome' | 'durationMs'> & { callId: number }): boolean {
    const { callId, ...rest } = event;
    return this.#push({ id: callId, patch: { ...rest, state: 'finished' } });
  }

  /** Queues an event; true when the queue is full and must be applied now. */
  #push(event: CallEvent): boolean {
    this.#events.push(event);
    return this.#events.length >= MAX_QUEUED;
  }

  /**
   * The queued events applied to `calls` in one pass (linear in the calls and the events), the newest `limit`
   * kept and the running ones older (`latest`); undefined when none are queued.
   */
  apply(calls: readonly CallSummary[], limit: number): CallSummary[] | undefined {
    const events = this.#events;
    if (events.length === 0) return undefined;
    this.#events = [];
    const started = new Map<number, CallSummary>();
    const patches = new Map<number, Partial<CallSummary>>();
    for (const event of events) {
      if ('started' in event) {
        const id = event.started.call.id;
        started.delete(id);
        // Its approval's news, heard before it started (in this frame or before), is kept.
        const early = patches.get(id);
        patches.delete(id);
        const known = early !== undefined && 'awaitingApproval' in early;
        if (known || this.#early.has(id)) {
          const awaitingApproval = known ? early.awaitingApproval : this.#early.get(id);
          started.set(id, { ...event.started, awaitingApproval });
        } else started.set(id, event.started);
        this.#early.delete(id);
        continue;
      }
      const fresh = started.get(event.id);
      if (fresh) started.set(event.id, { ...fresh, ...event.patch });
      else patches.set(event.id, { ...patches.get(event.id), ...event.patch });
    }
    const kept = calls
      .filter((c) => !started.has(c.call.id))
      .map((c) => {
        const patch = patches.get(c.call.id);
        if (!patch) return c;
        patches.delete(c.call.id);
        if ('awaitingApproval' in patch) this.#early.delete(c.call.id); // newer news than any kept
        return { ...c, ...patch };
      });
    // A patch left is of a call not shown: one finishing was a running call not shown (or never listed);
    // whether one not known waits for a person is kept for when it starts.
    for (const [id, patch] of patches) {
      if (patch.state === 'finished') {
        this.#omitted--;
        this.#early.delete(id);
      } else if ('awaitingApproval' in patch) this.#remember(id, patch.awaitingApproval);
    }
    const all = [...[...started.values()].reverse(), ...kept];
    const shown = latest(all, limit);
    this.#omitted += running(all) - running(shown);
    return shown;
  }

  /** Keeps whether a call not known yet waits for a person, forgetting the oldest past `MAX_EARLY`. */
  #remember(id: number, approvalId: string | undefined): void {
    this.#early.delete(id);
    this.#early.set(id, approvalId);
    if (this.#early.size > MAX_EARLY) {
      const oldest = this.#early.keys().next();
      if (!oldest.done) this.#early.delete(oldest.value);
    }
  }

  /** How many more (or fewer) running calls are not shown since last asked; counted from 0 again. */
  omittedChange(): number {
    const change = this.#omitted;
    this.#omitted = 0;
    return change;
  }

  /**
   * The calls listed by the gateway (newest first) merged with those known (`calls`, with the events queued
   * meanwhile applied): a call the stream saw finish stays finished, and those that started after the listing's
   * newest (`newer`) stay on top; the newest `limit` kept, and the running ones older (`latest`).
   */
  merge(calls: readonly CallSummary[], listed: readonly CallSummary[], limit: number): CallSummary[] {
    const known = this.apply(calls, Number.MAX_SAFE_INTEGER) ?? calls;
    const seen = new Map(known.map((c) => [c.call.id, c]));
    const merged = listed.map((c) => {
      const now = seen.get(c.call.id);
      return now?.state === 'finished' && c.state === 'running' ? now : c;
    });
    const ids = new Set(merged.map((c) => c.call.id));
    const head = merged[0];
    const after = known.filter((c) => !ids.has(c.call.id) && (head === undefined || newer(c, head)));
    return latest([...after.sort(newestFirst), ...merged], limit);
  }

  /**
   * The calls the gateway says changed since the last listing (newest first) applied to those known (with the
   * events queued meanwhile applied): each replaces the one known (a call the stream saw finish stays
   * finished), and those not known go where they started among the rest (`newer`), as the call log lists them.
   */
  changed(calls: readonly CallSummary[], changed: readonly CallSummary[], limit: number): CallSummary[] {
    const known = this.apply(calls, Number.MAX_SAFE_INTEGER) ?? calls;
    const fresh = new Map(changed.map((c) => [c.call.id, c]));
    const updated = known.map((c) => {
      const now = fresh.get(c.call.id);
      if (!now) return c;
      fresh.delete(c.call.id);
      return c.state === 'finished' && now.state === 'running' ? c : now;
    });
    return latest(interleave(updated, [...fresh.values()].sort(newestFirst)), limit);
  }
}

/**
 * Whether call `a` started after call `b`: by start time, then id, as the call log orders them. Not by id
 * alone: the instances of a gateway sharing a log number their calls in ranges of their own (instance n from
 * n × 2^32), so a call of instance 0 can start after thousands of instance 3's.
 */
function newer(a: CallSummary, b: CallSummary): boolean {
  return a.startedAt === b.startedAt ? a.call.id > b.call.id : a.startedAt > b.startedAt;
}

/** For `sort`: the call that started later first (`newer`). */
function newestFirst(a: CallSummary, b: CallSummary): number {
  return newer(a, b) ? -1 : newer(b, a) ? 1 : 0;
}

/** Two lists of calls, each newest first, as one (newest first), in linear time; `a`'s first on a tie. */
function interleave(a: readonly CallSummary[], b: readonly CallSummary[]): CallSummary[] {
  const all: CallSummary[] = [];
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) all.push(newer(b[j]!, a[i]!) ? b[j++]! : a[i++]!);
  while (i < a.length) all.push(a[i++]!);
  while (j < b.length) all.push(b[j++]!);
  return all;
}

/** How many of `calls` run. */
function running(calls: readonly CallSummary[]): number {
  let count = 0;
  for (const call of calls) if (call.state === 'running') count++;
  return count;
}

/** The newest `limit` of `calls` (newest first) and, after them, the running ones older (`limit` at most). */
export function latest(calls: CallSummary[], limit: number): CallSummary[] {
  if (calls.length <= limit) return calls;
  const kept = calls.slice(0, limit);
  let older = 0;
  for (let i = limit; i < calls.length && older < limit; i++) {
    const call = calls[i]!;
    if (call.state !== 'running') continue;
    kept.push(call);
    older++;
  }
  return kept;
}
