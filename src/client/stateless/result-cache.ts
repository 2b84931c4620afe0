/**
 * The client's cache of stateless-era results (2026-07-28): list pages and `resources/read`, each kept
 * while fresh (`now < received + ttlMs`; an absent `ttlMs` counts as 0, so such results are never kept).
 *
 * The key is the method plus its params (the `cursor` included, `_meta` left out), so each page is cached
 * on its own. A `cacheScope: "public"` result is shared by every authorization context; a `"private"` one
 * (or one without a scope) is kept under the authorization context it was fetched in and never served to
 * another one.
 * @module
 */
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';

/** The methods whose results carry a cache hint (besides `server/discover`, which the client does not cache). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

interface Entry {
  method: string;
  params: JsonObject;
  result: JsonObject;
  expires: number;
}

/** JSON with object keys sorted, so that equal params give equal keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function withoutMeta(params: JsonObject | undefined): JsonObject {
  if (!params) return {};
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

export class ResultCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  static key(scope: string, method: string, params: JsonObject | undefined): string {
    return `${JSON.stringify(scope)}\n${method}\n${stableJson(withoutMeta(params))}`;
  }

  /** The fresh result for this request in `authContext` (a public one first), or undefined. */
  get(method: string, params: JsonObject | undefined, authContext: string): JsonObject | undefined {
    for (const scope of ['public', `private:${authContext}`]) {
      const key = ResultCache.key(scope, method, params);
      const entry = this.#entries.get(key);
      if (!entry) continue;
      if (this.#now() < entry.expires) return entry.result;
      this.#entries.delete(key);
    }
    return undefined;
  }

  /** Keeps a complete result while its `ttlMs` says it is fresh. Returns whether it was kept. */
  store(method: string, params: JsonObject | undefined, authContext: string, result: JsonObject): boolean {
    const ttl = result.ttlMs;
    if (typeof ttl !== 'number' || !(ttl > 0)) return false;
    const scope = result.cacheScope === 'public' ? 'public' : `private:${authContext}`;
    const key = ResultCache.key(scope, method, params);
    this.#entries.delete(key);
    this.#entries.set(key, { method, params: withoutMeta(params), result, expires: this.#now() + ttl });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return true;
  }

  /** Forgets every result of `method` (whose params pass `match`, when given), in every scope. */
  invalidate(method: string, match?: (params: JsonObject) => boolean): void {
    for (const [key, entry] of this.#entries) {
      if (entry.method === method && (!match || match(entry.params))) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
