/**
 * The stateless era's reserved `_meta` keys, result fields and errors (2026-07-28).
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export type ResultType = 'complete' | 'input_required' | (string & {});

/** How long a list or read result may be cached, and by whom. */
export interface CacheHint {
  /** Milliseconds the result stays fresh (0: immediately stale). */
  ttlMs: number;
  /** `public`: no user-specific data; `private`: never shared across authorization contexts. */
  cacheScope: 'public' | 'private';
}

const shown = (value: unknown): string =>
  typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value);

/**
 * Checks a server's `cache` option (a partial {@link CacheHint}): throws a TypeError naming what is wrong.
 * `ttlMs` goes on the wire as is, and the schema wants a number of at least 0 (`Infinity` and `NaN` are
 * no JSON numbers); `cacheScope` is one of the two scopes.
 */
export function checkCacheHint(value: unknown): asserts value is Partial<CacheHint> | undefined {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('cache must be an object ({ ttlMs, cacheScope })');
  const { ttlMs, cacheScope } = value as Record<string, unknown>;
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0))
    throw new TypeError(
      `cache.ttlMs must be a finite number of milliseconds, 0 or more (got ${shown(ttlMs)})`,
    );
  if (cacheScope !== undefined && cacheScope !== 'public' && cacheScope !== 'private')
    throw new TypeError(`cache.cacheScope must be "public" or "private" (got ${shown(cacheScope)})`);
}

export interface DiscoverResult extends CacheHint {
  resultType: 'complete';
  supportedVersions: string[];
  capabilities: JsonObject;
  instructions?: string;
  _meta?: JsonObject;
}

/** Whether request params carry the stateless era's version key. */
export function hasStatelessMeta(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && META.protocolVersion in meta;
}

/**
 * What a `subscriptions/listen` request asks to hear (2026-07-28 `SubscriptionFilter`). Every
 * notification type is opt-in: the server sends none the filter does not name.
 */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed` */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed` */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed` */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs (replaces `resources/subscribe`). */
  resourceSubscriptions?: string[];
  /** `notifications/tasks` about these tasks (the tasks extension; the caller's own tasks only). */
  taskIds?: string[];
}
