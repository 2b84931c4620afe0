/**
 * Pagination of every list method (tools, resources, resource templates, prompts): opaque cursors,
 * stable order, pages built once per registry change and per revision (already shaped), then shared by
 * every request of every session. A `cursor` of `""` asks for the first page (the pocket spec's clients
 * send back the `""` that ended a listing, and no cursor this server issues is empty). The last page's
 * `nextCursor` is the profile's `endCursor`: absent (the schema's shape) or `""` (the pocket spec's).
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { serializeOnce } from '../protocol/json-text.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';

const CURSOR_PREFIX = 'tw1.';
/** Cached page sets at most (views of a subset; the full list of each revision always stays). */
const MAX_CACHED = 64;

export function encodeCursor(offset: number): string {
  return CURSOR_PREFIX + btoa(String(offset)).replace(/=+$/, '');
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor');
}

/** Decodes a cursor into an offset; -32602 for anything this server did not issue. */
export function decodeCursor(cursor: string, pageSize: number): number {
  if (!cursor.startsWith(CURSOR_PREFIX)) throw invalidCursor();
  let text: string;
  try {
    text = atob(cursor.slice(CURSOR_PREFIX.length));
  } catch {
    throw invalidCursor();
  }
  if (!/^[1-9][0-9]{0,9}$/.test(text)) throw invalidCursor();
  const offset = Number(text);
  if (offset % pageSize !== 0) throw invalidCursor();
  return offset;
}

/** The `cursor` of a list request's params; -32602 when it is present but not a string. */
export function cursorParam(params: JsonObject): string | undefined {
  const cursor = params.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: cursor must be a string');
  }
  return cursor;
}

/** One page of a list result: the items under `key`, and `nextCursor` (on the last page only in pocket shapes). */
export type Page<K extends string, TItem> = { [P in K]: TItem[] } & { nextCursor?: string };

interface Built<K extends string, TItem> {
  version: number;
  pages: readonly Page<K, TItem>[];
}

/**
 * Pages of registry entries, shaped into wire items.
 * @typeParam TEntry what the registry holds
 * @typeParam TItem what the list result carries (the wire form, shaped for a revision)
 * @typeParam K the result's list field (`tools`, `resources`, `resourceTemplates`, `prompts`)
 */
export class Pages<TEntry, TItem, K extends string> {
  readonly #key: K;
  readonly #pageSize: number;
  readonly #shape: (entry: TEntry, profile: RevisionProfile) => TItem;
  readonly #cache = new Map<string, Built<K, TItem>>();

  constructor(key: K, pageSize: number, shape: (entry: TEntry, profile: RevisionProfile) => TItem) {
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new RangeError('pageSize must be a positive integer');
    this.#key = key;
    this.#pageSize = pageSize;
    this.#shape = shape;
  }

  /**
   * The page that starts at `cursor` (or the first page), shaped for `profile`. `view` names the subset
   * `entries` is (e.g. the tools one caller may see; '' for all): each view's pages are cached apart.
   */
  page(
    entries: readonly TEntry[],
    version: number,
    profile: RevisionProfile,
    cursor: string | undefined,
    view = '',
  ): Page<K, TItem> {
    const pages = this.#pages(entries, version, profile, view);
    if (cursor === undefined || cursor === '') return pages[0] ?? this.#make([], profile.endCursor);
    const offset = decodeCursor(cursor, this.#pageSize);
    // A cursor past the end (the list shrank since it was issued) is an empty last page.
    return pages[offset / this.#pageSize] ?? this.#make([], profile.endCursor);
  }

  #make(items: TItem[], nextCursor?: string): Page<K, TItem> {
    const page = { [this.#key]: items } as Page<K, TItem>;
    if (nextCursor !== undefined) page.nextCursor = nextCursor;
    // Frozen, and serialized once for all the requests that get it.
    return serializeOnce(page);
  }

  #pages(
    entries: readonly TEntry[],
    version: number,
    profile: RevisionProfile,
    view: string,
  ): readonly Page<K, TItem>[] {
    const key = view === '' ? profile.version : `${profile.version}|${view}`;
    const cached = this.#cache.get(key);
    if (cached && cached.version === version) return cached.pages;
    const pages: Page<K, TItem>[] = [];
    for (let offset = 0; offset < entries.length || offset === 0; offset += this.#pageSize) {
      const items = entries.slice(offset, offset + this.#pageSize).map((e) => this.#shape(e, profile));
      const next = offset + this.#pageSize;
      pages.push(this.#make(items, next < entries.length ? encodeCursor(next) : profile.endCursor));
    }
    const built = { version, pages: Object.freeze(pages) };
    // Views come and go with callers: keep the most recent ones (the full views stay, one per revision).
    if (view !== '' && this.#cache.size >= MAX_CACHED) {
      for (const old of this.#cache.keys()) {
        if (old.includes('|')) {
          this.#cache.delete(old);
          break;
        }
      }
    }
    this.#cache.set(key, built);
    return built.pages;
  }
}
