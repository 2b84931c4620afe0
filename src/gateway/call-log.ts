/**
 * The latest calls through the gateway, with what the audit log leaves out on purpose: their arguments
 * and results, for the console (a person watching needs to see what ran and what came back). Calls are
 * recorded while someone listens to the gateway's call events (a console's event stream): nobody
 * watching, the relay skips this, and costs nothing more per call. Kept in memory only, and bounded: the latest `maxCalls` calls, and results up to `maxBytes` in all (the oldest
 * results are dropped first, their summaries kept; a result larger than `maxResultBytes` is not kept at
 * all). A running call can be cancelled from here: its signal aborts, which the relay turns into a
 * cancellation upstream.
 * @module
 */
import type { CallToolResult, JsonObject } from '../index.js';
import type { CallDecision, CallOutcome } from './gateway-audit-sink.js';
import type { CallInfo } from './gateway-events.js';

/** A call as the console lists it: who, what, how it went — without its arguments and result. */
export interface CallSummary {
  call: CallInfo;
  /** When it arrived (ISO 8601). */
  startedAt: string;
  state: 'running' | 'finished';
  /** The latest progress the upstream reported. */
  progress?: { progress: number; total?: number; message?: string };
  decision?: CallDecision;
  outcome?: CallOutcome;
  durationMs?: number;
  approvalId?: string;
  /** Who cancelled it from the API, if someone did. */
  cancelledBy?: string;
  /** Whether the result is kept (`GET /api/calls/ID` has it). */
  hasResult: boolean;
  /** Why there is no result: too large to keep, or dropped to make room for newer ones. */
  resultDropped?: 'too-large' | 'evicted';
}

/** A call with its arguments and its result (or the error its caller got instead). */
export interface CallRecord extends CallSummary {
  arguments: JsonObject;
  result?: CallToolResult;
  error?: string;
}

export interface CallEnd {
  decision: CallDecision;
  outcome: CallOutcome;
  durationMs: number;
  approvalId?: string;
  result?: CallToolResult;
  error?: string;
}

export interface CallLogOptions {
  /** Calls kept (default 500). */
  maxCalls?: number;
  /** The results' JSON kept in all, in bytes (default 32 MiB). */
  maxBytes?: number;
  /** One result's JSON kept at most, in bytes (default 4 MiB). */
  maxResultBytes?: number;
}

interface Entry {
  record: CallRecord;
  bytes: number;
  resultBytes: number;
  controller: AbortController | undefined;
}

export class CallLog {
  readonly #entries = new Map<number, Entry>();
  readonly #maxCalls: number;
  readonly #maxBytes: number;
  readonly #maxResultBytes: number;
  #bytes = 0;

  constructor(options: CallLogOptions = {}) {
    this.#maxCalls = Math.max(1, options.maxCalls ?? 500);
    this.#maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.#maxResultBytes = Math.min(options.maxResultBytes ?? 4 * 1024 * 1024, this.#maxBytes);
  }

  /** Records a call that starts; its signal aborts when someone cancels it (`cancel`). */
  start(call: CallInfo, args: JsonObject): AbortSignal {
    const controller = new AbortController();
    const record: CallRecord = {
      call,
      startedAt: new Date().toISOString(),
      state: 'running',
      hasResult: false,
      arguments: args,
    };
    const bytes = JSON.stringify(args).length;
    this.#entries.set(call.id, { record, bytes, resultBytes: 0, controller });
    this.#bytes += bytes;
    this.#trim();
    return controller.signal;
  }

  progress(id: number, progress: NonNullable<CallSummary['progress']>): void {
    const entry = this.#entries.get(id);
    if (entry) entry.record.progress = progress;
  }

  finish(id: number, end: CallEnd): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    const { result, ...rest } = end;
    Object.assign(entry.record, rest, { state: 'finished' });
    entry.controller = undefined;
    if (result !== undefined) {
      const bytes = JSON.stringify(result).length;
      if (bytes > this.#maxResultBytes) entry.record.resultDropped = 'too-large';
      else {
        entry.record.result = result;
        entry.record.hasResult = true;
        entry.resultBytes = bytes;
        entry.bytes += bytes;
        this.#bytes += bytes;
      }
    }
    this.#trim();
  }

  /**
   * Cancels a running call on behalf of `by`. Answers `cancelled`, `finished` (too late), or undefined
   * for a call this log does not know (never, or no longer).
   */
  cancel(id: number, by: string): 'cancelled' | 'finished' | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (!entry.controller || entry.record.state === 'finished') return 'finished';
    entry.record.cancelledBy ??= by;
    entry.controller.abort(new Error(`cancelled by ${by}`));
    return 'cancelled';
  }

  /** Who cancelled a call, if someone did through `cancel`. */
  cancelledBy(id: number): string | undefined {
    return this.#entries.get(id)?.record.cancelledBy;
  }

  /** The latest `limit` calls (default all kept), newest first. */
  list(limit = this.#maxCalls): CallSummary[] {
    const summaries: CallSummary[] = [];
    for (const { record } of this.#entries.values()) {
      const { arguments: _arguments, result: _result, error: _error, ...summary } = record;
      summaries.push(summary);
    }
    return summaries.reverse().slice(0, Math.max(0, limit));
  }

  get(id: number): CallRecord | undefined {
    return this.#entries.get(id)?.record;
  }

  /** Drops the oldest finished calls past `maxCalls`, then the oldest results past `maxBytes`. */
  #trim(): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxCalls) break;
      if (entry.record.state === 'running') continue;
      this.#entries.delete(id);
      this.#bytes -= entry.bytes;
    }
    for (const entry of this.#entries.values()) {
      if (this.#bytes <= this.#maxBytes) break;
      const { record } = entry;
      if (record.result === undefined) continue;
      delete record.result;
      record.hasResult = false;
      record.resultDropped = 'evicted';
      entry.bytes -= entry.resultBytes;
      this.#bytes -= entry.resultBytes;
      entry.resultBytes = 0;
    }
  }
}
