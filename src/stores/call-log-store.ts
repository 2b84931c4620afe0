/**
 * Where a gateway's call log keeps its calls, with what the audit log leaves out on purpose: their
 * arguments, progress and results (a person watching needs to see what ran and what came back). Instances
 * sharing the store list and read each other's calls. Writes are made on the hot path of every call, so
 * they return nothing: an implementation may batch them (the Redis one sends those of one turn of the event
 * loop together), and a write it cannot make is lost, never the call's problem; `flushed()` waits for them.
 * Reads wait for the writes made before them on the same handle.
 *
 * Instances sharing a store take call ids by instance (instance `n` numbers its calls from n × 2^32) and say
 * they live (`live(n)`): a running call of an instance that no longer does (its process was killed) is
 * shown ended, `outcome: 'lost'`, to every reader.
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
import type { CallEnd, CallInfo, CallRecord, CallSummary } from './gateway-records.js';

export {
  DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES,
  DEFAULT_CALL_LOG_MAX_RESULT_BYTES,
} from './call-log-bounds.js';

/** The latest progress of a call, as the upstream reported it. */
export type CallProgress = NonNullable<CallSummary['progress']>;

/** What `CallLogStore.changes` answers. */
export interface CallChanges {
  /**
   * `whole: false`: the calls changed after the marker asked with (started, progressed, ended), newest first.
   * `whole: true`: the listing (`list(limit)`), for a reader without a marker or with one that cannot be
   * followed (the store restarted, trimmed calls changed after it, another store's): it lists anew.
   */
  calls: CallSummary[];
  whole: boolean;
  /** Where these calls end: the marker to ask with next. */
  marker: string;
  /**
   * The running calls the store keeps that its listing (`list(limit)`) leaves out: those older than the latest
   * `limit`, past the `maxCalls` newest of them. Counted for every answer (as of the listing now, `whole` or
   * not); a store that does not count them leaves it out.
   */
  runningOmitted?: number;
}

export interface CallLogStore {
  /** Records a call that starts (running, with its arguments); `startedAt` is ISO 8601. */
  start(call: CallInfo, args: JsonObject, startedAt: string): void;
  /** The latest progress of a running call (a store may write it less often than it comes). */
  progress(id: number, progress: CallProgress): void;
  /** Records how a call ended, and its result (kept when small enough); a call no longer kept is ignored. */
  finish(id: number, end: CallEnd): void;
  /** Resolves once the writes made so far are stored; rejects (a `StoreError`) when they could not be. */
  flushed(): Promise<void>;
  /**
   * The latest `limit` calls (default and at most `maxCalls`) and, after them, the running calls older than
   * those (`maxCalls` of them at most: the newest), newest first, without arguments and results: a call that
   * still runs is listed however many calls started after it.
   */
  list(limit?: number): Promise<CallSummary[]>;
  /** One call with its arguments and result; undefined when unknown (never, or no longer kept). */
  get(id: number): Promise<CallRecord | undefined>;
  /**
   * The calls changed after `marker` (from an earlier answer), or, without one or with one it cannot follow,
   * the listing (`whole: true`, as `list(limit)`), with the marker to ask with next: a reader that reconnects
   * reads what changed instead of every call. Each change of a call (start, progress, end, settled lost) takes
   * the store's next number; the marker names the store (a restart or another store is told apart) and the
   * last number seen. A store without it is listed whole.
   */
  changes?(marker: string | undefined, limit?: number): Promise<CallChanges>;
  /**
   * The finished calls it keeps at most (its `maxCalls`), when it says: a reader that lists them and follows
   * the call events (the console) keeps no more, since an older one could no longer be read.
   */
  readonly maxCalls?: number;
  /**
   * Says that instance `instance` (from 1; its call ids start at `instance` × 2^32) lives, until the stop
   * it resolves with is called (or the process ends). From then on — or once the process is gone, for a
   * store shared by processes — its calls still running are shown ended: `state: 'finished'`,
   * `outcome: 'lost'`, with an error saying so. Resolves once it is said.
   */
  live(instance: number): Promise<() => Promise<void>>;
}

export interface CallLogStoreOptions {
  /**
   * Calls kept (default 500): the latest so many (by start) and every running call older than them; an older
   * call goes once it has finished.
   */
  maxCalls?: number;
  /**
   * One call's result kept at most, in UTF-8 bytes of JSON (default 256 KiB; a larger one:
   * `resultDropped: 'too-large'`); an error longer than this is cut to it.
   */
  maxResultBytes?: number;
  /**
   * One call's arguments kept at most, in UTF-8 bytes of JSON (default 256 KiB; larger ones are not kept:
   * `arguments` is `{}`, `argumentsDropped: 'too-large'`).
   */
  maxArgumentsBytes?: number;
}

export interface MemoryCallLogStoreOptions extends CallLogStoreOptions {
  /**
   * The arguments' and results' JSON kept in all, in bytes (default 32 MiB): the oldest results go first,
   * then the oldest finished calls' arguments (`argumentsDropped: 'evicted'`).
   */
  maxBytes?: number;
}

export const DEFAULT_CALL_LOG_MAX_CALLS = 500;
/** Call ids of one instance: instance `n` numbers its calls from n × this. */
export const CALL_IDS_PER_INSTANCE = 2 ** 32;

/** The error a call whose instance stopped while it ran is shown with. */
export function lostCallError(instance: number): string {
  return `The gateway instance running the call (instance ${instance}) stopped before the call ended.`;
}
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  record: CallRecord;
  bytes: number;
  resultBytes: number;
  /** The number of its latest change. */
  changed: number;
}

/** A marker: the store's epoch (random, per store), a dot, the number of the last change seen. */
const MARKER = /^([A-Za-z0-9_-]{1,64})\.(\d{1,16})$/;

/** The epoch and number a marker names; undefined when it is not one. */
export function parseCallMarker(marker: string): { epoch: string; seq: number } | undefined {
  const match = MARKER.exec(marker);
  if (!match) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { epoch: match[1]!, seq } : undefined;
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

  finish(id: number, end: CallEnd): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
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
