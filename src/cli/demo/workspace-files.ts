/**
 * The demo's files as resources: the `file://` links that list_files returns resolve through
 * `resources/read` (the template `file://{+path}`), inside the same sandbox as the tools. A URI outside
 * the root, a directory, a missing file and a file over the size limit are all "Resource not found"
 * (-32002), so a client learns nothing about what lies outside the workspace.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { resourceNotFound, type ResourceTemplateHandle, type Server } from '../../server/index.js';
import { imageMediaType, looksBinary, mediaType } from './file-media-type.js';
import { READ_LIMITS } from './read-file.js';
import type { Sandbox } from './sandbox.js';

export function registerWorkspaceFiles(server: Server, sandbox: Sandbox): ResourceTemplateHandle {
  return server.resourceTemplate(
    'file://{+path}',
    {
      name: 'workspace-file',
      title: 'Workspace file',
      description: `A file under the workspace root (${sandbox.root}), as linked by list_files.`,
    },
    async (uri) => {
      let absolute: string;
      try {
        absolute = (await sandbox.resolve(fileURLToPath(uri))).absolute;
        const info = await stat(absolute);
        if (!info.isFile() || info.size > READ_LIMITS.defaultMaxBytes) throw resourceNotFound(uri);
      } catch {
        throw resourceNotFound(uri);
      }
      const bytes = await readFile(absolute);
      const mimeType = imageMediaType(absolute) ?? mediaType(absolute);
      if (imageMediaType(absolute) || looksBinary(bytes)) {
        return { uri, mimeType: mimeType ?? 'application/octet-stream', blob: bytes.toString('base64') };
      }
      return { uri, mimeType: mimeType ?? 'text/plain', text: bytes.toString('utf8') };
    },
  );
}
