/**
 * The last step of every result in the stateless era: `resultType` (kept when the handler set one, e.g.
 * `input_required`), the cache hint of list and read results, and `serverInfo` in `_meta`. Handshake-era
 * results pass through unchanged.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';
import type { Implementation } from '../types/lifecycle.js';
import { META, type CacheHint } from '../types/stateless.js';
import type { RevisionFeatures } from './features.js';

export interface ResultExtras {
  serverInfo?: Implementation;
  /** Only for cacheable results (lists, `resources/read`, `server/discover`). */
  cache?: CacheHint;
}

export function finishResult(result: JsonObject, f: RevisionFeatures, extras: ResultExtras = {}): JsonObject {
  if (!f.stateless) return result;
  const out: JsonObject = { resultType: 'complete', ...result };
  if (extras.cache && out.resultType === 'complete') {
    out.ttlMs = extras.cache.ttlMs;
    out.cacheScope = extras.cache.cacheScope;
  }
  if (extras.serverInfo) {
    out._meta = { ...(isJsonObject(result._meta) ? result._meta : {}), [META.serverInfo]: extras.serverInfo };
  }
  return out;
}
