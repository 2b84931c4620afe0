/**
 * `tools/list` pagination: the generic {@link Pages} over the tool registry.
 * @module
 */
import type { RevisionProfile } from '../../protocol/revisions/index.js';
import type { ListToolsResult, Tool } from '../../protocol/types/tools.js';
import { Pages } from '../pages.js';
import type { RegisteredTool } from './tool-definition.js';

export { encodeCursor, decodeCursor } from '../pages.js';

export class ToolPages {
  readonly #pages: Pages<RegisteredTool, Tool, 'tools'>;

  constructor(pageSize: number) {
    this.#pages = new Pages('tools', pageSize, (entry, profile) => profile.shapeTool(entry.tool));
  }

  /** The page that starts at `cursor` (or the first page) of the `view` subset, shaped for `profile`. */
  page(
    tools: readonly RegisteredTool[],
    version: number,
    profile: RevisionProfile,
    cursor: string | undefined,
    view = '',
  ): ListToolsResult {
    return this.#pages.page(tools, version, profile, cursor, view);
  }
}
