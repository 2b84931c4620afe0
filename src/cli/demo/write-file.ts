/**
 * The demo's `write_file` tool: writes a text file in the workspace, creating parent directories.
 * An existing file is replaced only with `overwrite: true`; the no-overwrite case is atomic
 * (exclusive create), so it also never follows a symbolic link planted in the meantime.
 * @module
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { text, toolError, type Server, type ToolAccess, type ToolHandle } from '../../server/index.js';
import { formatBytes } from './file-media-type.js';
import type { Sandbox } from './sandbox.js';
import { guarded } from './tool-failure.js';

/** The largest content accepted, in UTF-8 bytes. */
export const MAX_WRITE_BYTES = 10 * 1024 * 1024;

const inputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File to write, relative to the workspace root' },
    content: { type: 'string', description: 'The full text to write (UTF-8)' },
    overwrite: {
      type: 'boolean',
      description: 'Replace the file if it exists (default false: an existing file is left untouched)',
    },
  },
  required: ['path', 'content'],
  additionalProperties: false,
} as const;

export function registerWriteFile(server: Server, sandbox: Sandbox, access?: ToolAccess): ToolHandle {
  return server.tool(
    'write_file',
    {
      title: 'Write a file',
      description:
        'Writes text to a file of the workspace (path relative to the workspace root), creating missing ' +
        'parent directories. Refuses to replace an existing file unless overwrite is true. Writing the ' +
        'same content twice has the same effect as once.',
      inputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      ...(access ? { access } : {}),
    },
    async ({ path: given, content, overwrite = false }) =>
      guarded(given, async () => {
        const bytes = Buffer.from(content, 'utf8');
        if (bytes.length > MAX_WRITE_BYTES) {
          return toolError(
            `The content is ${formatBytes(bytes.length)}, over the ${formatBytes(MAX_WRITE_BYTES)} limit`,
          );
        }
        const file = await sandbox.resolve(given);
        if (file.relative === '.') return toolError('Cannot write to the workspace root itself');
        const existing = await stat(file.absolute).catch(() => undefined);
        if (existing?.isDirectory()) return toolError(`"${given}" is a directory`);
        if (existing && !overwrite) {
          return toolError(
            `"${given}" already exists (${formatBytes(existing.size)}); pass overwrite: true to replace it`,
          );
        }
        await mkdir(path.dirname(file.absolute), { recursive: true });
        try {
          await writeFile(file.absolute, bytes, { flag: overwrite ? 'w' : 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            return toolError(`"${given}" already exists; pass overwrite: true to replace it`);
          }
          throw error;
        }
        const verb = existing ? 'Replaced' : 'Wrote';
        return text(`${verb} ${file.relative} (${formatBytes(bytes.length)})`);
      }),
  );
}
