/**
 * `tools/list` pagination: opaque cursors, stable order, pages built once per registry change and per
 * revision (already shaped), then shared by every request of every session.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';
import type { ListToolsResult } from '../protocol/types/tools.js';
import type { RegisteredTool } from './tool-definition.js';

const CURSOR_PREFIX = 'tw1.';

export function encodeCursor(offset: number): string {
  return CURSOR_PREFIX + btoa(String(offset)).replace(/=+$/, '');
}

/** Decodes a cursor into an offset; -32602 for anything this server did not issue. */
export function decodeCursor(cursor: string, pageSize: number): number {
  const invalid = () => new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor');
  if (!cursor.startsWith(CURSOR_PREFIX)) throw invalid();
  let text: string;
  try {
    text = atob(cursor.slice(CURSOR_PREFIX.length));
  } catch {
    throw invalid();
  }
  if (!/^[1-9][0-9]{0,9}$/.test(text)) throw invalid();
  const offset = Number(text);
  if (offset % pageSize !== 0) throw invalid();
  return offset;
}

interface Built {
  version: number;
  pages: readonly ListToolsResult[];
}

export class ToolPages {
  readonly #pageSize: number;
  readonly #cache = new Map<string, Built>();

  constructor(pageSize: number) {
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new RangeError('pageSize must be a positive integer');
    this.#pageSize = pageSize;
  }

  /** The page that starts at `cursor` (or the first page), shaped for `profile`. */
  page(
    tools: readonly RegisteredTool[],
    version: number,
    profile: RevisionProfile,
    cursor: string | undefined,
  ): ListToolsResult {
    const pages = this.#pages(tools, version, profile);
    if (cursor === undefined) return pages[0] ?? { tools: [] };
    const offset = decodeCursor(cursor, this.#pageSize);
    // A cursor past the end (the list shrank since it was issued) is an empty last page.
    return pages[offset / this.#pageSize] ?? { tools: [] };
  }

  #pages(
    tools: readonly RegisteredTool[],
    version: number,
    profile: RevisionProfile,
  ): readonly ListToolsResult[] {
    const cached = this.#cache.get(profile.version);
    if (cached && cached.version === version) return cached.pages;
    const pages: ListToolsResult[] = [];
    for (let offset = 0; offset < tools.length || offset === 0; offset += this.#pageSize) {
      const slice = tools.slice(offset, offset + this.#pageSize).map((t) => profile.shapeTool(t.tool));
      const next = offset + this.#pageSize;
      pages.push(
        Object.freeze(
          next < tools.length ? { tools: slice, nextCursor: encodeCursor(next) } : { tools: slice },
        ),
      );
    }
    const built = { version, pages: Object.freeze(pages) };
    this.#cache.set(profile.version, built);
    return built.pages;
  }
}
