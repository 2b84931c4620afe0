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
import type { JsonObject } from '../protocol/jsonrpc.js';
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
  /**
   * A running call waits for a person (`approvalId`: its pending approval, listed as the call's
   * `awaitingApproval`), or no longer does (undefined). A store without it lists no call as waiting.
   */
  awaiting?(id: number, approvalId: string | undefined): void;
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

export const DEFAULT_CALL_LOG_MAX_CALLS = 500;
/** Call ids of one instance: instance `n` numbers its calls from n × this. */
export const CALL_IDS_PER_INSTANCE = 2 ** 32;

/** The error a call whose instance stopped while it ran is shown with. */
export function lostCallError(instance: number): string {
  return `The gateway instance running the call (instance ${instance}) stopped before the call ended.`;
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
