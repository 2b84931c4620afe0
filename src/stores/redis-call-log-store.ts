/**
 * A gateway's call log in Redis, shared by every instance: a hash per call (`<prefix>gateway:call:<id>`:
 * its summary, arguments, result or error, all JSON, and whether it runs) and an index of the latest calls
 * (`<prefix>gateway:calls`, a sorted set by start time): the latest `maxCalls` and the running calls older than
 * them; the finished calls older than the latest `maxCalls` go, hash and all (their ids stay in `<prefix>gateway:calls-trimmed`, the latest 10,000, so that a
 * start landing late does not bring one back), and a set of the running calls (`<prefix>gateway:calls-running`,
 * by start time too: a read settles and counts the running calls through it, not the whole index). Every key expires `ttlMs` after the last write to it. A call's
 * arguments and result are kept up to `maxArgumentsBytes` and `maxResultBytes` each (256 KiB by default;
 * larger, the summary says `'too-large'`), so the call log holds at most `maxCalls` × both (250 MiB by
 * default) beside its summaries.
 *
 * Writes are the hot path of every call, so they are batched: the calls that start or end within
 * `writeDelayMs` are written together in one script call (one round trip; a call that starts and ends
 * within it, as most do, is written once; a batch goes at once when it holds 256 calls or 1 MiB of JSON),
 * and progress alone, which may come many times a second, is written within `progressWriteMs` (the latest
 * one). Reads on the same handle write what is pending first. A batch that cannot be written (Redis out of
 * reach) is lost, the calls go on.
 *
 * An instance that says it lives (`live(n)`) keeps a key saying so (`<prefix>gateway:instance:<n>`) for
 * `liveTtlMs`, renewed by one timer three times as often. A reader that finds a running call whose instance
 * has no such key (its process was killed, or closed with the call still running) settles it as ended,
 * `outcome: 'lost'`, in the store (one script, the same for every reader). The calls of instance 0 (ids
 * below 2^32: a gateway that shares no bus, the only one on its store) are never settled so.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { JsonObject } from '../protocol/jsonrpc.js';
import {
  boundedError,
  DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES,
  DEFAULT_CALL_LOG_MAX_RESULT_BYTES,
  jsonWithin,
} from './call-log-bounds.js';
import {
  DEFAULT_CALL_LOG_MAX_CALLS,
  parseCallMarker,
  type CallChanges,
  type CallLogStore,
  type CallLogStoreOptions,
  type CallProgress,
} from './call-log-store.js';
import type { CallEnd, CallInfo, CallRecord, CallSummary } from './gateway-records.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { GET, LIST, LOST_AFTER, LOST_BEFORE, WRITE } from './redis-call-log-scripts.js';

export interface RedisCallLogStoreOptions extends RedisStoreOptions, CallLogStoreOptions {
  /** How long a call is kept after its last write, in ms (default 24 hours). */
  ttlMs?: number;
  /** How long a call's start or end may wait to be written with others, in ms (default 20). */
  writeDelayMs?: number;
  /** How long a running call's progress may wait to be written, in ms (default 200). */
  progressWriteMs?: number;
  /**
   * How long an instance that said it lives (`live`) is believed without news, in ms (default 15 s; renewed
   * every third of it): a killed instance's running calls are shown ended once it has passed.
   */
  liveTtlMs?: number;
}

export const DEFAULT_CALL_LOG_TTL_MS = 24 * 60 * 60_000;
export const DEFAULT_CALL_LOG_LIVE_TTL_MS = 15_000;

const NAME = 'Redis call log store';
/** A batch is written at once when it holds this many calls or bytes of JSON (Redis runs a script alone). */
const MAX_BATCH_CALLS = 256;
const MAX_BATCH_BYTES = 1024 * 1024;
/**
 * The ids of calls trimmed from the log kept at most (≈ 1 MB in Redis), so that a start landing late (its
 * batch timed out on a frozen Redis) does not bring back a call that ended and was trimmed since.
 */
const TRIMMED_KEPT = 10_000;

interface Running {
  summary: CallSummary;
  /** When it started (ms since the epoch): its place in the index. */
  score: number;
}

interface Pending {
  summary: CallSummary;
  /** Written as it starts: the index gets it (by `score`), and its arguments go with it. */
  start: boolean;
  /** Sent with its start and its end (an end that lands before its start writes the call, indexed). */
  score?: number;
  arguments?: string;
  result?: string;
  error?: string;
}

export class RedisCallLogStore implements CallLogStore {
  readonly #client: Redis;
  readonly #index: string;
  /** The ids of the calls trimmed from the index, the latest `TRIMMED_KEPT` (see WRITE). */
  readonly #trimmed: string;
  readonly #prefix: string;
  /** The store's changes (its epoch, the latest change's number, the latest of a call trimmed: see WRITE). */
  readonly #changes: string;
  /** The calls by the number of their latest change. */
  readonly #changed: string;
  /** The running calls, by start (as the index): a read settles and counts these only. */
  readonly #runningCalls: string;
  /** The epoch this handle gives a store that has none. */
  readonly #epoch = randomUUID();
  readonly #maxCalls: number;
  readonly #maxResultBytes: number;
  readonly #maxArgumentsBytes: number;
  readonly #ttlMs: number;
  readonly #writeMs: number;
  readonly #progressMs: number;
  readonly #liveTtlMs: number;
  /** The live keys' prefix (an instance's number follows). */
  readonly #live: string;
  /** The summaries of this handle's running calls, which their progress and end change. */
  readonly #running = new Map<number, Running>();
  #pending = new Map<number, Pending>();
  /** The arguments' and results' JSON pending, in characters. */
  #pendingBytes = 0;
  /** The next write, and when it is due (ms, performance clock). */
  #timer: { due: number; timeout: NodeJS.Timeout } | undefined;
  /** The batch being written, if any. */
  #writing: Promise<void> = Promise.resolve();

  constructor(client: Redis, options: RedisCallLogStoreOptions = {}) {
    this.#client = client;
    this.#index = `${prefixOf(options)}gateway:calls`;
    this.#trimmed = `${prefixOf(options)}gateway:calls-trimmed`;
    this.#prefix = `${prefixOf(options)}gateway:call:`;
    this.#changes = `${prefixOf(options)}gateway:calls-changes`;
    this.#changed = `${prefixOf(options)}gateway:calls-changed`;
    this.#runningCalls = `${prefixOf(options)}gateway:calls-running`;
    this.#maxCalls = positiveOption(options.maxCalls ?? DEFAULT_CALL_LOG_MAX_CALLS, 'maxCalls');
    this.#maxResultBytes = positiveOption(
      options.maxResultBytes ?? DEFAULT_CALL_LOG_MAX_RESULT_BYTES,
      'maxResultBytes',
    );
    this.#maxArgumentsBytes = positiveOption(
      options.maxArgumentsBytes ?? DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES,
      'maxArgumentsBytes',
    );
    this.#ttlMs = positiveOption(options.ttlMs ?? DEFAULT_CALL_LOG_TTL_MS, 'ttlMs');
    this.#writeMs = positiveOption(options.writeDelayMs ?? 20, 'writeDelayMs');
    this.#progressMs = positiveOption(options.progressWriteMs ?? 200, 'progressWriteMs');
    this.#liveTtlMs = positiveOption(options.liveTtlMs ?? DEFAULT_CALL_LOG_LIVE_TTL_MS, 'liveTtlMs');
    this.#live = `${prefixOf(options)}gateway:instance:`;
  }

  start(call: CallInfo, args: JsonObject, startedAt: string): void {
    const summary: CallSummary = { call, startedAt, state: 'running', hasResult: false };
    const score = performance.timeOrigin + performance.now();
    // Too large: not written (read as `{}`), the summary says why.
    const json = jsonWithin(args, this.#maxArgumentsBytes);
    if (json === undefined) summary.argumentsDropped = 'too-large';
    this.#running.set(call.id, { summary, score });
    this.#pending.set(call.id, { summary, start: true, score, arguments: json });
    this.#pendingBytes += json?.length ?? 0;
    this.#schedule(this.#writeMs);
  }

  progress(id: number, progress: CallProgress): void {
    const summary = this.#running.get(id)?.summary;
    if (!summary) return;
    summary.progress = progress;
    if (!this.#pending.has(id)) this.#pending.set(id, { summary, start: false });
    this.#schedule(this.#progressMs);
  }

  awaiting(id: number, approvalId: string | undefined): void {
    const summary = this.#running.get(id)?.summary;
    if (!summary) return;
    if (approvalId === undefined) delete summary.awaitingApproval;
    else summary.awaitingApproval = approvalId;
    if (!this.#pending.has(id)) this.#pending.set(id, { summary, start: false });
    this.#schedule(this.#writeMs);
  }

  finish(id: number, end: CallEnd): void {
    const running = this.#running.get(id);
    if (!running) return;
    this.#running.delete(id);
    const { summary, score } = running;
    delete summary.awaitingApproval;
    const { result, error, ...rest } = end;
    Object.assign(summary, rest, { state: 'finished' });
    // Started in this batch too: written once, as it ends.
    let pending = this.#pending.get(id);
    if (!pending) this.#pending.set(id, (pending = { summary, start: false, score }));
    if (result !== undefined) {
      const json = jsonWithin(result, this.#maxResultBytes);
      if (json === undefined) summary.resultDropped = 'too-large';
      else {
        summary.hasResult = true;
        pending.result = json;
        this.#pendingBytes += json.length;
      }
    }
    if (error !== undefined) pending.error = JSON.stringify(boundedError(error, this.#maxResultBytes));
    this.#schedule(this.#writeMs);
  }

  flushed(): Promise<void> {
    if (this.#pending.size > 0) this.#flush();
    return this.#writing;
  }

  get maxCalls(): number {
    return this.#maxCalls;
  }

  async list(limit = this.#maxCalls): Promise<CallSummary[]> {
    const count = Math.max(0, Math.min(Math.floor(limit), this.#maxCalls));
    if (count === 0) {
      await this.flushed().catch(() => undefined);
      return [];
    }
    return (await this.changes(undefined, count)).calls;
  }

  async changes(marker: string | undefined, limit = this.#maxCalls): Promise<CallChanges> {
    await this.flushed().catch(() => undefined);
    const count = Math.max(0, Math.min(Math.floor(limit), this.#maxCalls));
    const since = marker === undefined ? undefined : parseCallMarker(marker);
    return redisOperation(this.#client, NAME, 'list', async () => {
      const [follows, epoch, seq, omitted, ...found] = (await LIST.run(
        this.#client,
        [this.#index, this.#changes, this.#changed, this.#runningCalls],
        [
          this.#prefix,
          count,
          ...this.#settleArgs(),
          this.#maxCalls,
          this.#epoch,
          since?.epoch ?? '',
          since?.seq ?? '',
          this.#ttlMs,
        ],
      )) as string[];
      return {
        calls: found.map((json) => JSON.parse(json) as CallSummary),
        whole: follows !== '1',
        marker: `${epoch}.${seq}`,
        runningOmitted: Number(omitted),
      };
    });
  }

  async get(id: number): Promise<CallRecord | undefined> {
    await this.flushed().catch(() => undefined);
    return redisOperation(this.#client, NAME, 'get', async () => {
      const [summary, args, result, error] = (await GET.run(
        this.#client,
        [`${this.#prefix}${id}`, this.#changes, this.#changed, this.#runningCalls],
        [id, '', ...this.#settleArgs()],
      )) as (string | null)[];
      if (!summary) return undefined;
      const record: CallRecord = {
        ...(JSON.parse(summary) as CallSummary),
        arguments: args ? (JSON.parse(args) as JsonObject) : {},
      };
      if (result) record.result = JSON.parse(result) as CallRecord['result'];
      if (error) record.error = JSON.parse(error) as string;
      return record;
    });
  }

  /**
   * Keeps `<prefix>gateway:instance:<instance>` for `liveTtlMs`, renewed every third of it by one unref'd
   * timer (a renewal that fails is tried again at the next); the stop ends that and deletes the key.
   */
  async live(instance: number): Promise<() => Promise<void>> {
    if (!Number.isSafeInteger(instance) || instance < 1) {
      throw new TypeError(`instance must be a whole number from 1, not ${instance}`);
    }
    const key = `${this.#live}${instance}`;
    const say = () =>
      redisOperation(this.#client, NAME, 'live', () => this.#client.set(key, '1', 'PX', this.#liveTtlMs));
    await say();
    const timer = setInterval(() => void say().catch(() => undefined), Math.ceil(this.#liveTtlMs / 3));
    timer.unref();
    return async () => {
      clearInterval(timer);
      await redisOperation(this.#client, NAME, 'live', () => this.#client.del(key));
    };
  }

  /** SETTLE's ARGV from its third: the live keys' prefix, the lost error's JSON around the instance. */
  #settleArgs(): string[] {
    return [this.#live, LOST_BEFORE, LOST_AFTER];
  }

  /** Writes what is pending within `delay` ms (sooner if a write is due sooner already). */
  #schedule(delay: number): void {
    if (this.#pending.size >= MAX_BATCH_CALLS || this.#pendingBytes >= MAX_BATCH_BYTES) {
      this.#flush();
      return;
    }
    const due = performance.now() + delay;
    if (this.#timer && this.#timer.due <= due) return;
    if (this.#timer) clearTimeout(this.#timer.timeout);
    const timeout = setTimeout(() => this.#flush(), delay);
    timeout.unref();
    this.#timer = { due, timeout };
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer.timeout);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const args: (string | number)[] = [this.#prefix, this.#maxCalls, this.#ttlMs, TRIMMED_KEPT, this.#epoch];
    for (const [id, pending] of this.#pending) {
      args.push(
        id,
        pending.score ?? 0,
        JSON.stringify(pending.summary),
        pending.arguments ?? '',
        pending.result ?? '',
        pending.error ?? '',
        pending.start ? '1' : '',
        pending.summary.state === 'finished' ? '1' : '0',
      );
    }
    this.#pending = new Map();
    this.#pendingBytes = 0;
    // One connection runs its commands in order: a batch is written after the ones sent before it (a call's
    // end after its start), and once it is, they are too. A batch that timed out on a frozen Redis may still
    // run when it thaws, after those of the connection made since: WRITE writes an end whose start has not
    // landed (yet) and never makes a finished call running.
    const writing = redisOperation(this.#client, NAME, 'write', () =>
      WRITE.run(
        this.#client,
        [this.#index, this.#trimmed, this.#changes, this.#changed, this.#runningCalls],
        args,
      ),
    ).then(() => undefined);
    // Nobody has to wait for a write: a batch that fails is lost (the calls go on), and `flushed()` says so.
    writing.catch(() => undefined);
    this.#writing = writing;
  }
}
