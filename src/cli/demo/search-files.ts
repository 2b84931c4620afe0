/**
 * The demo's `search_files` tool: finds lines matching a substring or a /regex/ in the files under a
 * directory, reporting progress (files scanned) as it goes and stopping early when cancelled.
 *
 * The caller's regular expression runs on re2js (RE2: linear time), never on `RegExp`: with a
 * backtracking engine `/^(a+)+$/` froze the whole server for 9.4 s on a 28-byte file, while no other
 * session was served and no cancellation could land. The search also yields to other work every
 * {@link SEARCH_LIMITS.yieldEveryBytes} of text and reads at most {@link SEARCH_LIMITS.maxTotalBytes}.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { structured, text, toolError, type Server, type ToolHandle } from '../../server/index.js';
import { looksBinary } from './file-media-type.js';
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
  /** Text read at most, over all files; the search stops there (truncated). */
  maxTotalBytes: 64 * 1024 * 1024,
  /** Other work (other calls, cancellation) gets a turn after this much text is matched. */
  yieldEveryBytes: 64 * 1024,
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

/** Flags a /regex/ may carry: `i` matters, the others change nothing for a search line by line. */
const REGEX_FLAGS = /^[dgimsuvy]*$/;

/**
 * `/regex/flags` becomes a test run by RE2 in linear time (its syntax: no backreferences or lookaround;
 * `i` for a case-insensitive match); anything else a substring test. Throws (a re2js syntax error) when
 * the regular expression is invalid. re2js is loaded on the first regular expression.
 */
export async function compilePattern(pattern: string): Promise<(line: string) => boolean> {
  const end = pattern.lastIndexOf('/');
  const flags = pattern.slice(end + 1);
  if (!pattern.startsWith('/') || end < 2 || !/^[a-z]*$/.test(flags)) return (line) => line.includes(pattern);
  if (!REGEX_FLAGS.test(flags)) throw new SyntaxError(`unknown flag in "${flags}"`);
  const { RE2JS } = await import('re2js');
  const source = RE2JS.translateRegExp(pattern.slice(1, end));
  const compiled = RE2JS.compile(source, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  return (line) => compiled.test(line);
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

  let budget = SEARCH_LIMITS.maxTotalBytes;
  let sinceYield = 0;
  for (const file of files) {
    if (signal?.aborted) {
      outcome.cancelled = true;
      return outcome;
    }
    if (file.size <= SEARCH_LIMITS.maxFileBytes) {
      if (file.size > budget) {
        outcome.truncated = true;
        break;
      }
      const bytes = await readFile(file.absolute).catch(() => undefined);
      budget -= bytes?.length ?? 0;
      if (bytes && !looksBinary(bytes)) {
        const lines = bytes.toString('utf8').split(/\r?\n/);
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i] ?? '';
          sinceYield += line.length;
          if (sinceYield >= SEARCH_LIMITS.yieldEveryBytes) {
            sinceYield = 0;
            await nextTurn(); // other sessions' calls, and a cancellation, get their turn
            if (signal?.aborted) {
              outcome.cancelled = true;
              return outcome;
            }
          }
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
      description:
        'A substring to find (case-sensitive), or a regular expression written /like this/i ' +
        '(RE2 syntax, run in linear time: no backreferences or lookaround)',
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
          matcher = await compilePattern(pattern);
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
