/**
 * The in-memory call log store: the calls of this process, bounded in count and bytes (see call-log-store.ts
 * for what a call log store keeps and how).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../protocol/jsonrpc.js';
import {
  boundedError,
  DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES,
  DEFAULT_CALL_LOG_MAX_RESULT_BYTES,
  jsonWithin,
} from './call-log-bounds.js';
import {
  CALL_IDS_PER_INSTANCE,
  DEFAULT_CALL_LOG_MAX_CALLS,
  lostCallError,
  parseCallMarker,
  type CallChanges,
  type CallLogStore,
  type CallLogStoreOptions,
  type CallProgress,
} from './call-log-store.js';
import type { CallEnd, CallInfo, CallRecord, CallSummary } from './gateway-records.js';

export interface MemoryCallLogStoreOptions extends CallLogStoreOptions {
  /**
   * The arguments' and results' JSON kept in all, in bytes (default 32 MiB): the oldest results go first,
   * then the oldest finished calls' arguments (`argumentsDropped: 'evicted'`).
   */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  record: CallRecord;
  bytes: number;
  resultBytes: number;
  /** The number of its latest change. */
  changed: number;
}

/** The in-memory default: the calls of this process, bounded in count and bytes. */
export class MemoryCallLogStore implements CallLogStore {
  readonly #entries = new Map<number, Entry>();
  readonly #maxCalls: number;
  readonly #maxBytes: number;
  readonly #maxResultBytes: number;
  readonly #maxArgumentsBytes: number;
  #bytes = 0;
  /** This store's epoch (markers of another store, or of this one before a restart, are not followed). */
  readonly #epoch = randomUUID();
  /** The latest change's number, and the latest of a call trimmed since (a marker before it is not followed). */
  #seq = 0;
  #trimmedSeq = 0;

  constructor(options: MemoryCallLogStoreOptions = {}) {
    this.#maxCalls = Math.max(1, options.maxCalls ?? DEFAULT_CALL_LOG_MAX_CALLS);
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#maxResultBytes = Math.min(
      options.maxResultBytes ?? DEFAULT_CALL_LOG_MAX_RESULT_BYTES,
      this.#maxBytes,
    );
    this.#maxArgumentsBytes = Math.min(
      options.maxArgumentsBytes ?? DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES,
      this.#maxBytes,
    );
  }

  start(call: CallInfo, args: JsonObject, startedAt: string): void {
    const record: CallRecord = { call, startedAt, state: 'running', hasResult: false, arguments: args };
    const json = jsonWithin(args, this.#maxArgumentsBytes);
    if (json === undefined) {
      record.arguments = {};
      record.argumentsDropped = 'too-large';
    }
    const bytes = json?.length ?? 0;
    this.#entries.set(call.id, { record, bytes, resultBytes: 0, changed: ++this.#seq });
    this.#bytes += bytes;
    this.#trim();
  }

  progress(id: number, progress: CallProgress): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    entry.record.progress = progress;
    entry.changed = ++this.#seq;
  }

  awaiting(id: number, approvalId: string | undefined): void {
    const entry = this.#entries.get(id);
    if (entry?.record.state !== 'running') return;
    if (approvalId === undefined) delete entry.record.awaitingApproval;
    else entry.record.awaitingApproval = approvalId;
    entry.changed = ++this.#seq;
  }

  finish(id: number, end: CallEnd): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    delete entry.record.awaitingApproval;
    const { result, ...rest } = end;
    if (rest.error !== undefined) rest.error = boundedError(rest.error, this.#maxResultBytes);
    Object.assign(entry.record, rest, { state: 'finished' });
    entry.changed = ++this.#seq;
    if (result !== undefined) {
      const bytes = jsonWithin(result, this.#maxResultBytes)?.length;
      if (bytes === undefined) entry.record.resultDropped = 'too-large';
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

  flushed(): Promise<void> {
    return Promise.resolve();
  }

  get maxCalls(): number {
    return this.#maxCalls;
  }

  list(limit = this.#maxCalls): Promise<CallSummary[]> {
    return Promise.resolve(this.#list(limit));
  }

  changes(marker: string | undefined, limit = this.#maxCalls): Promise<CallChanges> {
    const next = `${this.#epoch}.${this.#seq}`;
    const since = marker === undefined ? undefined : parseCallMarker(marker);
    const follows =
      since && since.epoch === this.#epoch && since.seq >= this.#trimmedSeq && since.seq <= this.#seq;
    // Summaries for the listing only; the count for every answer.
    const listing = this.#listing(limit, !follows);
    const { runningOmitted } = listing;
    if (!follows) return Promise.resolve({ calls: listing.calls, whole: true, marker: next, runningOmitted });
    const calls: CallSummary[] = [];
    const entries = [...this.#entries.values()];
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i]!.changed > since.seq) calls.push(summaryOf(entries[i]!.record));
    }
    return Promise.resolve({ calls, whole: false, marker: next, runningOmitted });
  }

  #list(limit: number): CallSummary[] {
    return this.#listing(limit).calls;
  }

  /**
   * The latest `limit`, then the running ones older than them (`maxCalls` at most), and how many running ones
   * that leaves out (the count only, `calls` empty, without `summaries`).
   */
  #listing(limit: number, summaries = true): { calls: CallSummary[]; runningOmitted: number } {
    const wanted = Math.max(0, Math.min(limit, this.#maxCalls));
    const calls: CallSummary[] = [];
    const entries = [...this.#entries.values()];
    let [listed, older, runningOmitted] = [0, 0, 0];
    for (let i = entries.length - 1; i >= 0; i--) {
      const { record } = entries[i]!;
      if (listed >= wanted) {
        if (record.state !== 'running') continue;
        if (wanted === 0 || older >= this.#maxCalls) {
          runningOmitted++;
          continue;
        }
        older++;
      }
      listed++;
      if (summaries) calls.push(summaryOf(record));
    }
    return { calls, runningOmitted };
  }

  get(id: number): Promise<CallRecord | undefined> {
    const entry = this.#entries.get(id);
    return Promise.resolve(entry && structuredClone(entry.record));
  }

  /** In one process an instance lives as long as the store: its calls still running end when it stops. */
  live(instance: number): Promise<() => Promise<void>> {
    const stop = () => {
      for (const [id, entry] of this.#entries) {
        const { record } = entry;
        if (record.state !== 'running' || Math.floor(id / CALL_IDS_PER_INSTANCE) !== instance) continue;
        Object.assign(record, { state: 'finished', outcome: 'lost', error: lostCallError(instance) });
        entry.changed = ++this.#seq;
      }
      return Promise.resolve();
    };
    return Promise.resolve(stop);
  }

  /**
   * Drops the finished calls older than the latest `maxCalls` (those running stay), then the oldest results
   * past `maxBytes`.
   */
  #trim(): void {
    let older = this.#entries.size - this.#maxCalls;
    for (const [id, entry] of this.#entries) {
      if (older-- <= 0) break;
      if (entry.record.state === 'running') continue;
      this.#entries.delete(id);
      this.#bytes -= entry.bytes;
      this.#trimmedSeq = Math.max(this.#trimmedSeq, entry.changed);
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
    // Arguments count too: without this, 500 calls of 4 MiB arguments held 2 GiB.
    for (const entry of this.#entries.values()) {
      if (this.#bytes <= this.#maxBytes) break;
      const { record } = entry;
      if (record.state === 'running' || record.argumentsDropped) continue;
      record.arguments = {};
      record.argumentsDropped = 'evicted';
      this.#bytes -= entry.bytes - entry.resultBytes;
      entry.bytes = entry.resultBytes;
    }
  }
}

/** A call's summary: its record without arguments, result and error, copied. */
function summaryOf(record: CallRecord): CallSummary {
  const { arguments: _arguments, result: _result, error: _error, ...summary } = record;
  return structuredClone(summary);
}
