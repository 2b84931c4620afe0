/**
 * The demo's `workspace_info` tool: where the workspace is, what is at its top level, and a small
 * generated PNG, so that clients see an image result.
 * @module
 */
import { image, text, type Server, type ToolHandle } from '../../server/index.js';
import type { Sandbox } from './sandbox.js';
import { tinyPng } from './tiny-png.js';
import { guarded } from './tool-failure.js';
import { walkTree } from './walk-tree.js';

export function registerWorkspaceInfo(server: Server, sandbox: Sandbox): ToolHandle {
  return server.tool(
    'workspace_info',
    {
      title: 'Workspace info',
      description:
        'Describes the workspace: its root directory, how many files and directories are at its top ' +
        'level, and the tools to explore it. Also returns a small badge image (PNG).',
      inputSchema: { type: 'object', additionalProperties: false } as const,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (_args, ctx) =>
      guarded('.', async () => {
        const root = await sandbox.realRoot();
        let files = 0;
        let directories = 0;
        for await (const entry of walkTree(sandbox, root, { signal: ctx.signal })) {
          if (entry.type === 'file') files++;
          else directories++;
        }
        const summary = [
          `Workspace root: ${root}`,
          `Top level: ${files} file${files === 1 ? '' : 's'}, ${directories} director${directories === 1 ? 'y' : 'ies'}`,
          'Paths are relative to the root and cannot leave it.',
          'Tools: list_files, read_file, search_files, write_file, workspace_info.',
        ].join('\n');
        return [text(summary), image(tinyPng(), 'image/png')];
      }),
  );
}
