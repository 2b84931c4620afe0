/**
 * The demo's `list_files` tool: the entries of a workspace directory, optionally recursive, as
 * structured output plus a resource link per file.
 * @module
 */
import { stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import {
  resourceLink,
  structured,
  text,
  toolError,
  type Server,
  type ToolHandle,
} from '../../server/index.js';
import { mediaType } from './file-media-type.js';
import type { Sandbox } from './sandbox.js';
import { guarded } from './tool-failure.js';
import { SKIPPED_DIRECTORIES, walkTree, type TreeEntry } from './walk-tree.js';

/** The most entries one call returns. */
export const MAX_LIST_ENTRIES = 500;

const inputSchema = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      description: 'Directory to list, relative to the workspace root (default: the root itself)',
    },
    recursive: { type: 'boolean', description: 'Also list the contents of subdirectories (default false)' },
  },
  additionalProperties: false,
} as const;

const outputSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Relative to the workspace root' },
          type: { type: 'string', enum: ['file', 'directory'] },
          size: { type: 'integer', minimum: 0, description: 'Bytes (0 for directories)' },
        },
        required: ['path', 'type', 'size'],
        additionalProperties: false,
      },
    },
    truncated: { type: 'boolean', description: `True when more than ${MAX_LIST_ENTRIES} entries exist` },
  },
  required: ['entries', 'truncated'],
  additionalProperties: false,
} as const;

export function registerListFiles(server: Server, sandbox: Sandbox): ToolHandle {
  return server.tool(
    'list_files',
    {
      title: 'List files',
      description:
        `Lists the files and directories of a workspace directory (paths relative to the workspace root), ` +
        `with sizes in bytes. With recursive: true, descends into subdirectories (except ` +
        `${[...SKIPPED_DIRECTORIES].join(' and ')}). Returns at most ${MAX_LIST_ENTRIES} entries and says ` +
        `when the list was truncated; list a subdirectory to see more. Each file also comes as a resource link.`,
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path = '.', recursive = false }, ctx) =>
      guarded(path, async () => {
        const dir = await sandbox.resolve(path);
        if (!(await stat(dir.absolute)).isDirectory()) {
          return toolError(`"${path}" is a file, not a directory: use read_file to read it`);
        }
        const found: TreeEntry[] = [];
        let truncated = false;
        for await (const entry of walkTree(sandbox, dir.absolute, { recursive, signal: ctx.signal })) {
          if (found.length === MAX_LIST_ENTRIES) {
            truncated = true;
            break;
          }
          found.push(entry);
        }
        const entries = found.map(({ path: p, type, size }) => ({ path: p, type, size }));
        const links = found
          .filter((entry) => entry.type === 'file')
          .map((entry) => {
            const mimeType = mediaType(entry.path);
            return resourceLink({
              uri: pathToFileURL(entry.absolute).href,
              name: entry.path,
              size: entry.size,
              ...(mimeType ? { mimeType } : {}),
            });
          });
        const notes = truncated
          ? [
              text(
                `Truncated: showing the first ${MAX_LIST_ENTRIES} entries; list a subdirectory to see more.`,
              ),
            ]
          : [];
        return structured({ entries, truncated }, ...notes, ...links);
      }),
  );
}
