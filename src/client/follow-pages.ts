/**
 * Follows the cursors of a paginated list method (`tools/list`, `resources/list`, …) to the end, with caps
 * against servers that never stop (pages, and the items and bytes kept across pages: 100 pages of 60,000
 * tools each held a gigabyte before the page cap ended them), and a check against cursors that repeat. The
 * cursors seen are kept for that check, so their size counts against the bytes too: 100 pages of one tool
 * and a distinct 3 MB cursor each held 300 MB (a gateway's upstream listing at 413 MB RSS) before the page
 * cap ended them.
 *
 * Where a listing ends: the schema leaves `nextCursor` out of the last page; servers written to the
 * "pocket spec" send `nextCursor: ""`, and some send `null`. A `null` (no cursor) ends it in both eras.
 * An empty string ends it in the handshake era, whose revisions say nothing of it (and SDKs treat it as
 * the end); in the stateless era (2026-07-28) "an empty string is a valid cursor and thus MUST NOT be
 * treated as the end of results", so it is followed like any other.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { jsonSize } from '../protocol/json-size.js';
import { ClientError } from './client-error.js';

/** Fetches the page at `cursor` (undefined: the first page). */
export type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

/** How much of one listing a client keeps (the `maxListPages`, `maxListItems`, `maxListBytes` options). */
export interface ListLimits {
  /** Pages followed (default 100). */
  maxPages: number;
  /** Items kept across pages (default 100,000). */
  maxItems: number;
  /** Size of the items kept across pages, as JSON text, and of the cursors kept (default 32 MiB). */
  maxBytes: number;
}

export const DEFAULT_LIST_LIMITS: ListLimits = Object.freeze({
  maxPages: 100,
  maxItems: 100_000,
  maxBytes: 32 * 1024 * 1024,
});

/** The limits the client options set. */
export function listLimits(options: {
  maxListPages?: number | undefined;
  maxListItems?: number | undefined;
  maxListBytes?: number | undefined;
}): ListLimits {
  return {
    maxPages: options.maxListPages ?? DEFAULT_LIST_LIMITS.maxPages,
    maxItems: options.maxListItems ?? DEFAULT_LIST_LIMITS.maxItems,
    maxBytes: options.maxListBytes ?? DEFAULT_LIST_LIMITS.maxBytes,
  };
}

/** How a client pages through lists: the limits, and the era's reading of an empty cursor. */
export type Paging = Pick<FollowPagesOptions<unknown>, 'limits' | 'emptyCursorEnds'>;

export interface FollowPagesOptions<T> {
  /** The method, for error messages. */
  method: string;
  /** The result's list field: `tools`, `resources`, `resourceTemplates`, `prompts`. */
  key: string;
  /** Throws TOO_MANY_PAGES past any of them. */
  limits: ListLimits;
  /** Whether `nextCursor: ""` ends the listing: true in the handshake era, false in the stateless era. */
  emptyCursorEnds: boolean;
  /** Keeps only the items that pass (malformed items are skipped). */
  accept(item: unknown): item is T;
}

/** Every item of every page, in order. Throws ClientError TOO_MANY_PAGES or INVALID_RESULT. */
export async function followPages<T>(fetchPage: PageFetcher, options: FollowPagesOptions<T>): Promise<T[]> {
  const { method, key } = options;
  const { maxPages, maxItems, maxBytes } = options.limits;
  const items: T[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      throw new ClientError(
        LocalErrorCode.TooManyPages,
        `${method} returned more than ${maxPages} pages; stopping (raise maxListPages if this is expected)`,
      );
    }
    const result = await fetchPage(cursor);
    const list = result[key];
    if (!Array.isArray(list)) {
      throw new ClientError(LocalErrorCode.InvalidResult, `${method} result has no "${key}" array`);
    }
    for (const item of list as unknown[]) {
      if (!options.accept(item)) continue;
      items.push(item);
      bytes += jsonSize(item);
    }
    if (items.length > maxItems) {
      throw new ClientError(
        LocalErrorCode.TooManyPages,
        `${method} returned more than ${maxItems} items; stopping (raise maxListItems if this is expected)`,
        { details: { pages: page + 1, items: items.length } },
      );
    }
    if (bytes > maxBytes) {
      throw new ClientError(
        LocalErrorCode.TooManyPages,
        `${method} returned more than ${maxBytes} bytes of items and cursors; stopping (raise maxListBytes if this is expected)`,
        { details: { pages: page + 1, bytes } },
      );
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || (next === '' && options.emptyCursorEnds)) break;
    if (seen.has(next)) {
      throw new ClientError(
        LocalErrorCode.InvalidResult,
        `${method} repeated the cursor "${next.length > 80 ? `${next.slice(0, 80)}…` : next}"`,
      );
    }
    // Kept (in `seen`) until the listing ends: counted with the items, checked with the next page's.
    seen.add(next);
    bytes += next.length;
    cursor = next;
  }
  return items;
}
