/**
 * What every session of a server shares: options, the registry, the cached pages, capabilities.
 * @module
 */
import type { LegacyRevision } from '../protocol/revisions/index.js';
import type { Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import type { Registry } from './registry.js';
import type { ServerSession } from './server-session.js';
import type { RegisteredTool, ToolSpec } from './tool-definition.js';
import type { ToolPages } from './tool-pages.js';

export interface ServerOptions {
  /** Shown to the client in the initialize result. */
  instructions?: string;
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number;
  /** Changes within this window send one `list_changed` (default 10 ms). */
  listChangedDebounceMs?: number;
  /** Timeout of requests the server sends to the client, e.g. elicitation (default 60 s). */
  requestTimeout?: number;
  /** Revisions to accept, newest first (default: every handshake-era revision). */
  versions?: readonly LegacyRevision[];
  /** Errors that reach no caller (transport errors, stray responses). */
  onError?: (error: Error) => void;
  /** A tool broke its contract (bad result, output that fails its outputSchema). Default: a line on stderr. */
  onToolBug?: (message: string, tool: string) => void;
  /** The client said its roots changed. */
  onRootsListChanged?: (session: ServerSession) => void;
}

/**
 * A server feature beyond tools (resources, prompts, completions): the capabilities it adds and the
 * request handlers it binds on each session (through `session.peer.setRequestHandler`).
 */
export interface ServerFeature {
  capabilities(): ServerCapabilities;
  bind(session: ServerSession): void;
}

export interface ServerCore {
  readonly info: Implementation;
  readonly options: ServerOptions;
  readonly versions: readonly LegacyRevision[];
  readonly capabilities: ServerCapabilities;
  readonly tools: Registry<ToolSpec, RegisteredTool>;
  readonly toolPages: ToolPages;
  readonly shutdownSignal: AbortSignal;
  readonly features: readonly ServerFeature[];
}
