/**
 * The demo server of `toolwire serve`: a sandboxed workspace toolbox. Five tools to list, read,
 * search and write the files under one root directory, which no path can escape, and the files
 * themselves as `file://` resources (what list_files links to).
 *
 * @example
 * ```ts
 * const server = createDemoServer({ root: '/tmp/workspace' });
 * await server.connect(new StdioServerTransport());
 * ```
 * @module
 */
import { Server, type RateLimitStore } from '../../server/index.js';
import { registerListFiles } from './list-files.js';
import { registerReadFile } from './read-file.js';
import { Sandbox } from './sandbox.js';
import { registerSearchFiles } from './search-files.js';
import { registerWorkspaceInfo } from './workspace-info.js';
import { registerWorkspaceFiles } from './workspace-files.js';
import { registerWriteFile } from './write-file.js';

export interface DemoServerOptions {
  /** The workspace root (default: {@link demoRoot}). */
  root?: string;
  /** Server name in the handshake (default `toolwire-demo`). */
  name?: string;
  /**
   * The scope `write_file` needs (default: none, anyone the server lets in may write). `toolwire serve`
   * sets `workspace:write` when authentication is on.
   */
  writeScope?: string;
  /** Where the per-caller rate limit counts (default: in memory; `toolwire serve --redis`: Redis). */
  rateLimitStore?: RateLimitStore;
}

/** The root the demo serves by default: `$TOOLWIRE_DEMO_ROOT`, else the current directory. */
export function demoRoot(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TOOLWIRE_DEMO_ROOT;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : process.cwd();
}

/** A toolwire Server exposing the workspace tools over `root`. */
export function createDemoServer(options: DemoServerOptions = {}): Server {
  const sandbox = new Sandbox(options.root ?? demoRoot());
  const server = new Server(
    { name: options.name ?? 'toolwire-demo', version: '0.1.0', title: 'toolwire demo workspace' },
    {
      // Sensible limits for a tool box a model drives: 20 calls/s per caller, bursts of 50.
      rateLimit: {
        perCaller: { burst: 50, perSecond: 20 },
        ...(options.rateLimitStore ? { store: options.rateLimitStore } : {}),
      },
      instructions:
        `A sandboxed workspace rooted at ${sandbox.root}. Paths are relative to that root; none may leave it. ` +
        'Start with workspace_info or list_files; read_file reads text and images; search_files finds ' +
        'lines; write_file creates files (overwrite: true to replace one).',
    },
  );
  registerListFiles(server, sandbox);
  registerReadFile(server, sandbox);
  registerSearchFiles(server, sandbox);
  registerWriteFile(server, sandbox, options.writeScope ? { scopes: [options.writeScope] } : undefined);
  registerWorkspaceInfo(server, sandbox);
  registerWorkspaceFiles(server, sandbox);
  return server;
}
