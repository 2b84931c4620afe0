/**
 * Rate limits on `tools/call`: token buckets, global, per caller, and per caller and tool, counted in a
 * {@link RateLimitStore}. A call over a limit is refused with the JSON-RPC error `-31429` (toolwire's
 * own code, outside the reserved range as 2026-07-28 asks) and `data: { retryAfterMs, limit }`; the
 * stateless-era HTTP transport answers it with status 429 and `Retry-After`. The handler does not run.
 *
 * A caller is its principal once authentication is on, else its HTTP session, else its address (an HTTP
 * request outside any session: the stateless era), else `anonymous` (one bucket for every caller without
 * any of these, e.g. the one client of a stdio server). The default is a bucket per caller, so that one
 * caller's flood limits that caller only; a global bucket, shared by every caller, is there to ask for.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError, asError } from '../../protocol/errors.js';
import { isPromiseLike } from '../../protocol/promise-like.js';
import {
  MemoryRateLimitStore,
  type BucketTake,
  type RateLimitStore,
  type TakeResult,
  type TokenBucket,
} from '../../stores/rate-limit-store.js';
import { ServerError } from '../server-error.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import type { InlineMiddleware } from './compose.js';
import type { ToolCall, ToolMiddleware } from './middleware.js';

/**
 * Which limit refused a call: a rate limit, a tool's concurrency cap, or (any request, not only
 * `tools/call`) the connection's `maxRequestsInFlight`.
 */
export type LimitKind = 'global' | 'caller' | 'tool' | 'concurrency' | 'in-flight' | 'tasks';

/** The `data` of a `-31429` error. */
export interface RateLimitedData {
  /** Try again after this long, in ms. */
  retryAfterMs: number;
  limit: LimitKind;
}

export interface RateLimitOptions {
  /** Where the buckets live (default: a new `MemoryRateLimitStore`). */
  store?: RateLimitStore;
  /**
   * One bucket for every call to the server, whoever calls (default: none). One caller's flood empties it
   * for everyone: a cap on the server's total load, not a fair share.
   */
  global?: TokenBucket | false;
  /** One bucket per caller, across tools (default `{ burst: 20_000, perSecond: 20_000 }`); false: none. */
  perCaller?: TokenBucket | false;
  /**
   * One bucket per caller and tool, for tools that declare no `rateLimit` of their own (default: none).
   * A tool's `rateLimit` replaces it; `rateLimit: false` on a tool exempts it.
   */
  perTool?: TokenBucket | false;
}

/** The generous default, per caller: a caller's flood is cut, no interactive use is. */
export const DEFAULT_CALLER_RATE_LIMIT: TokenBucket = Object.freeze({ burst: 20_000, perSecond: 20_000 });

/** The error a refused call gets. */
export function rateLimitedError(message: string, data: RateLimitedData): ProtocolError {
  return new ProtocolError(ErrorCode.RateLimited, message, data);
}

/** The key of a call's caller: its principal, else its HTTP session, else its address, else `anonymous`. */
export function callerKey(call: Pick<ToolCall, 'principal' | 'sessionId' | 'clientAddress'>): string {
  if (call.principal !== undefined) return `principal:${call.principal.subject}`;
  if (call.sessionId !== undefined) return `session:${call.sessionId}`;
  if (call.clientAddress !== undefined) return `address:${call.clientAddress}`;
  return 'anonymous';
}

/** Throws a ServerError for a bucket no call could ever get a token from. */
export function checkBucket(bucket: TokenBucket | false | undefined, what: string): void {
  if (bucket === undefined || bucket === false) return;
  if (!(bucket.burst >= 1) || !Number.isFinite(bucket.burst)) {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `${what}: burst must be a finite number ≥ 1`);
  }
  if (!(bucket.perSecond > 0) || !Number.isFinite(bucket.perSecond)) {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `${what}: perSecond must be a finite number > 0`);
  }
}

const KIND_BY_PREFIX: ReadonlyArray<[string, LimitKind]> = [
  ['global', 'global'],
  ['caller:', 'caller'],
  ['tool:', 'tool'],
];

/** Take lists kept for one-bucket calls, per caller (cleared when there are more: a new list is cheap). */
const MAX_KEPT_LISTS = 1_000;

export function rateLimit(options: RateLimitOptions = {}): ToolMiddleware {
  const inline = inlineRateLimit(options);
  return (call, next) => Promise.resolve(inline(call, next));
}

/** The rate limit as the chain's built-in: a call let through gets the rest of the chain's result as it comes. */
export function inlineRateLimit(options: RateLimitOptions = {}): InlineMiddleware<ToolCall, CallToolResult> {
  const store = options.store ?? new MemoryRateLimitStore();
  const { global, perTool } = options;
  const perCaller = options.perCaller === undefined ? DEFAULT_CALLER_RATE_LIMIT : options.perCaller;
  checkBucket(global, 'rateLimit.global');
  checkBucket(perCaller, 'rateLimit.perCaller');
  checkBucket(perTool, 'rateLimit.perTool');

  // One bucket alone (the default: one per caller): its take list made once per key, not per call.
  const globalOnly: readonly BucketTake[] | undefined = global
    ? Object.freeze([Object.freeze({ key: 'global', bucket: global })])
    : undefined;
  const callerLists = new Map<string, readonly BucketTake[]>();
  const callerOnly = (caller: string, bucket: TokenBucket): readonly BucketTake[] => {
    let list = callerLists.get(caller);
    if (!list) {
      if (callerLists.size >= MAX_KEPT_LISTS) callerLists.clear();
      list = Object.freeze([Object.freeze({ key: `caller:${caller}`, bucket })]);
      callerLists.set(caller, list);
    }
    return list;
  };
  const refused = (call: ToolCall, taken: Extract<TakeResult, { ok: false }>): never => {
    const limit = KIND_BY_PREFIX.find(([prefix]) => taken.key.startsWith(prefix))?.[1] ?? 'global';
    call.decision = 'rate_limited';
    const scope =
      limit === 'global' ? 'the server' : limit === 'caller' ? 'this caller' : `tool ${call.tool.name}`;
    throw rateLimitedError(`Rate limit exceeded for ${scope}; retry after ${taken.retryAfterMs} ms`, {
      retryAfterMs: taken.retryAfterMs,
      limit,
    });
  };

  // Not async: a store that answers at once (the memory store) costs the call no microtask hop.
  return (call, next) => {
    try {
      const own = call.tool.limits.rateLimit;
      const toolBucket = own === undefined ? perTool : own;
      let takes: readonly BucketTake[];
      if (!toolBucket && !(global && perCaller)) {
        if (perCaller) takes = callerOnly(callerKey(call), perCaller);
        else if (globalOnly) takes = globalOnly;
        else return next();
      } else {
        const caller = callerKey(call);
        const list: BucketTake[] = [];
        if (global) list.push({ key: 'global', bucket: global });
        if (perCaller) list.push({ key: `caller:${caller}`, bucket: perCaller });
        if (toolBucket) list.push({ key: `tool:${call.tool.name}:${caller}`, bucket: toolBucket });
        takes = list;
      }
      const taken = store.take(takes);
      if (!isPromiseLike(taken)) return taken.ok ? next() : refused(call, taken);
      return Promise.resolve(taken).then((result) => (result.ok ? next() : refused(call, result)));
    } catch (error) {
      return Promise.reject(asError(error));
    }
  };
}
