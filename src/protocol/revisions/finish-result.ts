/**
 * The last step of every result in the stateless era: `resultType` (kept when the handler set one, e.g.
 * `input_required`), the cache hint of list and read results, and `serverInfo` in `_meta`. Handshake-era
 * results pass through unchanged.
 * @module
 */
import { assignMembers, isJsonObject, withMember, type JsonObject } from '../jsonrpc.js';
import type { Implementation } from '../types/lifecycle.js';
import { META, type CacheHint } from '../types/stateless.js';
import type { RevisionFeatures } from './features.js';

export interface ResultExtras {
  serverInfo?: Implementation;
  /** Only for cacheable results (lists, `resources/read`, `server/discover`). */
  cache?: CacheHint;
}

/** `result` finished for the era (a handshake-era result is returned as it is). */
export function finishResult<R extends object>(
  result: R,
  f: RevisionFeatures,
  extras: ResultExtras = {},
): R | JsonObject {
  if (!f.stateless) return result;
  // Object.assign, not a spread: see `withMember` (every stateless-era result passes here).
  const out: JsonObject = assignMembers({ resultType: 'complete' }, result);
  if (extras.cache && out.resultType === 'complete') {
    out.ttlMs = extras.cache.ttlMs;
    out.cacheScope = extras.cache.cacheScope;
  }
  if (extras.serverInfo) {
    const meta = '_meta' in result ? result._meta : undefined;
    out._meta = withMember(isJsonObject(meta) ? meta : undefined, META.serverInfo, extras.serverInfo);
  }
  return out;
}
