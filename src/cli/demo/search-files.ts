/**
 * The demo's `search_files` tool: finds lines matching a substring or a /regex/ in the files under a
 * directory, reporting progress (files scanned) as it goes and stopping early when cancelled.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { structured, text, toolError, type Server, type ToolHandle } from '../../server/index.js';
import { looksBinary } from './media-type.js';
import type { Sandbox } from './sandbox.js';
import { guarded } from './tool-failure.js';
import { SKIPPED_DIRECTORIES, walkTree, type TreeEntry } from './walk-tree.js';

export const SEARCH_LIMITS = {
  /** Matches returned at most. */
  maxMatches: 200,
  /** Files scanned at most. */
  maxFiles: 10_000,
  /** Larger files are skipped. */
  maxFileBytes: 1024 * 1024,
  /** Matching lines are cut to this many characters. */
  maxLineChars: 200,
  /** Progress notifications per search, about. */
  progressSteps: 100,
} as const;

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  /** Files read so far, and files to read. */
  scanned: number;
  total: number;
  /** More matches (or files) existed than the limits allow. */
  truncated: boolean;
  /** The signal was aborted before the search finished. */
  cancelled: boolean;
}

/** `/regex/flags` becomes a RegExp (throws SyntaxError when invalid); anything else a substring test. */
export function compilePattern(pattern: string): (line: string) => boolean {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    const compiled = new RegExp(regex[1] ?? '', (regex[2] ?? '').replace(/[gy]/g, ''));
    return (line) => compiled.test(line);
  }
  return (line) => line.includes(pattern);
}

/** Searches the files under `directory` (a real absolute path inside the sandbox). */
export async function searchFiles(
  sandbox: Sandbox,
  directory: string,
  matches: (line: string) => boolean,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => Promise<void> | void } = {},
): Promise<SearchOutcome> {
  const { signal, onProgress } = options;
  const files: TreeEntry[] = [];
  let truncated = false;
  for await (const entry of walkTree(sandbox, directory, { recursive: true, signal })) {
    if (entry.type !== 'file') continue;
    if (files.length === SEARCH_LIMITS.maxFiles) {
      truncated = true;
      break;
    }
    files.push(entry);
  }
  const outcome: SearchOutcome = {
    matches: [],
    scanned: 0,
    total: files.length,
    truncated,
    cancelled: false,
  };
  const every = Math.max(1, Math.ceil(files.length / SEARCH_LIMITS.progressSteps));

  for (const file of files) {
    if (signal?.aborted) {
      outcome.cancelled = true;
      return outcome;
    }
    if (file.size <= SEARCH_LIMITS.maxFileBytes) {
      const bytes = await readFile(file.absolute).catch(() => undefined);
      if (bytes && !looksBinary(bytes)) {
        const lines = bytes.toString('utf8').split(/\r?\n/);
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i] ?? '';
          if (!matches(line)) continue;
          if (outcome.matches.length === SEARCH_LIMITS.maxMatches) {
            outcome.truncated = true;
            break;
          }
          outcome.matches.push({ path: file.path, line: i + 1, text: clip(line.trim()) });
        }
      }
    }
    outcome.scanned++;
    if (outcome.scanned % every === 0 || outcome.scanned === files.length) {
      await onProgress?.(outcome.scanned, files.length);
    }
    if (outcome.truncated && outcome.matches.length === SEARCH_LIMITS.maxMatches) break;
  }
  outcome.cancelled = signal?.aborted ?? false;
  return outcome;
}

function clip(line: string): string {
  return line.length > SEARCH_LIMITS.maxLineChars
    ? `${line.slice(0, SEARCH_LIMITS.maxLineChars - 1)}…`
    : line;
}

const inputSchema = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      description: 'A substring to find (case-sensitive), or a regular expression written /like this/i',
    },
    path: {
      type: 'string',
      description: 'Directory to search, relative to the workspace root (default: root)',
    },
  },
  required: ['pattern'],
  additionalProperties: false,
} as const;

const outputSchema = {
  type: 'object',
  properties: {
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          line: { type: 'integer', minimum: 1 },
          text: { type: 'string' },
        },
        required: ['path', 'line', 'text'],
        additionalProperties: false,
      },
    },
    filesScanned: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean' },
  },
  required: ['matches', 'filesScanned', 'truncated'],
  additionalProperties: false,
} as const;

export function registerSearchFiles(server: Server, sandbox: Sandbox): ToolHandle {
  return server.tool(
    'search_files',
    {
      title: 'Search files',
      description:
        'Finds the lines that contain a substring, or match a /regular expression/, in the text files ' +
        `under a workspace directory (recursively, skipping ${[...SKIPPED_DIRECTORIES].join(' and ')}, ` +
        `binary files and files over 1 MiB). Returns up to ${SEARCH_LIMITS.maxMatches} matches with their ` +
        'path and line number. Reports progress (files scanned) and stops when cancelled.',
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ pattern, path = '.' }, ctx) =>
      guarded(path, async () => {
        let matcher: (line: string) => boolean;
        try {
          matcher = compilePattern(pattern);
        } catch (error) {
          return toolError(`Invalid regular expression ${pattern}: ${(error as Error).message}`);
        }
        const dir = await sandbox.resolve(path);
        if (!(await stat(dir.absolute)).isDirectory()) return toolError(`"${path}" is not a directory`);
        const outcome = await searchFiles(sandbox, dir.absolute, matcher, {
          signal: ctx.signal,
          onProgress: (done, total) => ctx.progress(done, total, `${done}/${total} files scanned`),
        });
        const result = {
          matches: outcome.matches,
          filesScanned: outcome.scanned,
          truncated: outcome.truncated,
        };
        const summary = `${outcome.matches.length} match${outcome.matches.length === 1 ? '' : 'es'} in ${outcome.scanned} files${
          outcome.truncated ? ' (truncated: narrow the pattern or the path)' : ''
        }`;
        return structured(result, text(summary));
      }),
  );
}
