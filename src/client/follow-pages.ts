/**
 * Follows the cursors of a paginated list method (`tools/list`, `resources/list`, …) to the end, with a
 * cap on pages against servers that never stop, and a check against cursors that repeat.
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
import { ClientError } from './client-error.js';

/** Fetches the page at `cursor` (undefined: the first page). */
export type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

/** How a client pages through lists: the cap on pages, and the era's reading of an empty cursor. */
export type Paging = Pick<FollowPagesOptions<unknown>, 'maxPages' | 'emptyCursorEnds'>;

export interface FollowPagesOptions<T> {
  /** The method, for error messages. */
  method: string;
  /** The result's list field: `tools`, `resources`, `resourceTemplates`, `prompts`. */
  key: string;
  /** Throws TOO_MANY_PAGES past this many pages. */
  maxPages: number;
  /** Whether `nextCursor: ""` ends the listing: true in the handshake era, false in the stateless era. */
  emptyCursorEnds: boolean;
  /** Keeps only the items that pass (malformed items are skipped). */
  accept(item: unknown): item is T;
}

/** Every item of every page, in order. Throws ClientError TOO_MANY_PAGES or INVALID_RESULT. */
export async function followPages<T>(fetchPage: PageFetcher, options: FollowPagesOptions<T>): Promise<T[]> {
  const { method, key, maxPages } = options;
  const items: T[] = [];
  const seen = new Set<string>();
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
    for (const item of list as unknown[]) if (options.accept(item)) items.push(item);
    const next = result.nextCursor;
    if (typeof next !== 'string' || (next === '' && options.emptyCursorEnds)) break;
    if (seen.has(next)) {
      throw new ClientError(LocalErrorCode.InvalidResult, `${method} repeated the cursor "${next}"`);
    }
    seen.add(next);
    cursor = next;
  }
  return items;
}
