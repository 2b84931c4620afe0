/**
 * The demo's `read_file` tool: a text file as text, an image (.png .jpg .gif .webp) as an image block,
 * any other binary file as an embedded resource. Directories and files over the size limit are refused.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import {
  embeddedResource,
  image,
  text,
  toolError,
  type Server,
  type ToolHandle,
} from '../../server/index.js';
import { formatBytes, imageMediaType, looksBinary } from './file-media-type.js';
import type { Sandbox } from './sandbox.js';
import { guarded } from './tool-failure.js';

/** Default and hard limits of `maxBytes`. */
export const READ_LIMITS = { defaultMaxBytes: 1024 * 1024, maxMaxBytes: 10 * 1024 * 1024 } as const;

const inputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File to read, relative to the workspace root' },
    maxBytes: {
      type: 'integer',
      minimum: 1,
      maximum: READ_LIMITS.maxMaxBytes,
      description: `Refuse files larger than this many bytes (default ${READ_LIMITS.defaultMaxBytes}, at most ${READ_LIMITS.maxMaxBytes})`,
    },
  },
  required: ['path'],
  additionalProperties: false,
} as const;

export function registerReadFile(server: Server, sandbox: Sandbox): ToolHandle {
  return server.tool(
    'read_file',
    {
      title: 'Read a file',
      description:
        'Reads one file of the workspace (path relative to the workspace root). Text files come back as ' +
        'text; PNG, JPEG, GIF and WebP images as an image; other binary files as an embedded resource. ' +
        `Files larger than maxBytes (default ${formatBytes(READ_LIMITS.defaultMaxBytes)}) and directories ` +
        'are refused; use list_files for directories and search_files to find lines in large trees.',
      inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path, maxBytes = READ_LIMITS.defaultMaxBytes }) =>
      guarded(path, async () => {
        const file = await sandbox.resolve(path);
        const info = await stat(file.absolute);
        if (info.isDirectory()) return toolError(`"${path}" is a directory: use list_files to list it`);
        if (!info.isFile()) return toolError(`"${path}" is not a regular file`);
        if (info.size > maxBytes) {
          return toolError(
            `"${path}" is ${formatBytes(info.size)} (${info.size} bytes), over the ${maxBytes}-byte limit; ` +
              `pass a larger maxBytes (at most ${READ_LIMITS.maxMaxBytes}) or use search_files`,
          );
        }
        const bytes = await readFile(file.absolute);
        const mimeType = imageMediaType(file.absolute);
        if (mimeType) return [image(bytes, mimeType)];
        if (looksBinary(bytes)) {
          return [
            text(`"${file.relative}" is a binary file (${formatBytes(bytes.length)})`),
            embeddedResource({
              uri: pathToFileURL(file.absolute).href,
              mimeType: 'application/octet-stream',
              blob: bytes,
            }),
          ];
        }
        return text(bytes.toString('utf8'));
      }),
  );
}
