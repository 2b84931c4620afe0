/**
 * What every session of a server shares: options, the registry, the cached pages, capabilities.
 * @module
 */
import type { ResultShapes, Revision } from '../protocol/revisions/index.js';
import type { CacheHint } from '../protocol/types/stateless.js';
import type { Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import type { AccessControl, AccessPolicy } from './auth/access-control.js';
import type { HandlerTable } from './handler-table.js';
import type { RequestChain } from './middleware/request-chain.js';
import type { ToolChainOptions } from './middleware/tool-chain.js';
import type { Registry } from './registry.js';
import type { SessionView } from './session-view.js';
import type { RequestStateCodec } from './input-required/request-state.js';
import type { ServerFeature } from './server-feature.js';
import type { TasksFeature } from './tasks/tasks-feature.js';
import type { TasksOptions } from './tasks/tasks-options.js';
import type { RegisteredTool, ToolSpec } from './tools/tool-definition.js';
import type { FinishedResults } from './finished-results.js';
import type { ToolPages } from './tools/tool-pages.js';

/**
 * Server options. The security built-ins of `tools/call` (`rateLimit`, `concurrency`, `toolTimeout`,
 * `sanitize`, `audit`) come from {@link ToolChainOptions}.
 */
export interface ServerOptions extends ToolChainOptions {
  /** Shown to the client in the initialize result. */
  instructions?: string;
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number;
  /** Changes within this window send one `list_changed` (default 10 ms). */
  listChangedDebounceMs?: number;
  /** Timeout of requests the server sends to the client, e.g. elicitation (default 60 s). */
  requestTimeout?: number;
  /**
   * Revisions to serve, newest first (default: all, both eras). Leave out the handshake-era ones for a
   * stateless-only server, or 2026-07-28 for a handshake-only one.
   */
  versions?: readonly Revision[];
  /**
   * Stateless era: how long clients may cache list and read results, and whether the cache may be shared
   * across authorization contexts (default `{ ttlMs: 0, cacheScope: 'public' }`: always re-fetch). Use
   * `cacheScope: 'private'` when lists vary by the caller's authorization. `ttlMs` must be a finite number,
   * 0 or more, and `cacheScope` one of the two (anything else throws a TypeError).
   */
  cache?: Partial<CacheHint>;
  /**
   * The shapes of results (default `'schema'`: the normative schema's). `'pocket'` speaks the shapes of
   * the "pocket spec" some clients are written against: `nextCursor: ""` on the last page of every list
   * (handshake era only: in the stateless era `""` is a cursor like any other), `structuredContent: {}` on
   * tool results that have none (2025-06-18 and later), and never an empty `content` (a text item is
   * added: the JSON of `structuredContent`, else empty). A request's `cursor: ""` means the first page
   * either way.
   */
  resultShapes?: ResultShapes;
  /**
   * Decides which tools each caller may see and call, beyond what tools declare in `access` (scopes,
   * roles). Tools it refuses are absent from the caller's `tools/list` and answered like unknown tools.
   */
  accessPolicy?: AccessPolicy;
  /**
   * Stateless era: the HMAC-SHA256 key that protects the `requestState` of multi round-trip requests
   * (a string is taken as UTF-8; use at least 32 random bytes). Default: a random key per process, so
   * several processes behind a load balancer must share one, or a retry that reaches another process is
   * refused with -32602.
   */
  requestStateSecret?: string | Uint8Array;
  /** Stateless era: how long a `requestState` stays valid, in ms (default 600,000: ten minutes). */
  requestStateTtlMs?: number;
  /**
   * 2026-07-28, the tasks extension (`io.modelcontextprotocol/tasks`): advertise it and serve
   * `tasks/get`, `tasks/update` and `tasks/cancel`, with these settings. A tool declared with `task`
   * turns it on too (with the defaults). Which calls become tasks: see `ToolDefinition.task`.
   */
  tasks?: TasksOptions;
  /**
   * The most messages a JSON-RPC batch may hold (2025-03-26); a longer batch is refused whole with
   * -32600 (default 100).
   */
  maxBatchSize?: number;
  /**
   * The most requests of one connection (a stdio connection, an HTTP session) answered at once; each
   * request past it is answered at once with -31429 and `data: { retryAfterMs, limit: 'in-flight' }`,
   * and its handler never runs (default 1000).
   */
  maxRequestsInFlight?: number;
  /**
   * The most bytes (characters of JSON text) of answers one connection's unfinished JSON-RPC batches may
   * hold (2025-03-26; a batch is answered as one message, once its last answer is ready); a request of a
   * batch that would start past it is not run and gets -31429 with `data: { retryAfterMs: 0, limit:
   * 'batch-answers' }` (default 8 MiB).
   */
  maxBatchAnswerBytes?: number;
  /**
   * How long the requests a connection is answering may take to finish once it closes gracefully, in ms
   * (default 10,000): when a stdio client closes stdin, and on `server.close({ graceMs })`. What still runs
   * then is cancelled and answered with -32603.
   */
  shutdownGraceMs?: number;
  /** Errors that reach no caller (transport errors, stray responses). */
  onError?: (error: Error) => void;
  /** A tool broke its contract (bad result, output that fails its outputSchema). Default: a line on stderr. */
  onToolBug?: (message: string, tool: string) => void;
  /**
   * A prompt getter returned no prompt result (messages not a list, a role that is neither `user` nor
   * `assistant`, a content block the spec does not define); the client got -32603. Default: a line on stderr.
   */
  onPromptBug?: (message: string, prompt: string) => void;
  /**
   * A resource reader returned no read result (contents without text or blob, a blob that is not base64);
   * the client got -32603. Default: a line on stderr.
   */
  onResourceBug?: (message: string, uri: string) => void;
  /** The client said its roots changed. */
  onRootsListChanged?: (session: SessionView) => void;
}

export interface ServerCore {
  readonly info: Implementation;
  readonly options: ServerOptions;
  readonly versions: readonly Revision[];
  readonly cache: CacheHint;
  /** Who may see and call which tool. */
  readonly access: AccessControl;
  /** The middleware around every request (`server.useRequest`). */
  readonly requests: RequestChain;
  /** The request handlers every session serves. */
  readonly handlers: HandlerTable;
  readonly capabilities: ServerCapabilities;
  readonly tools: Registry<ToolSpec, RegisteredTool>;
  readonly toolPages: ToolPages;
  /** Stateless-era results finished for their revision (list pages once per page). */
  readonly finished: FinishedResults;
  readonly shutdownSignal: AbortSignal;
  readonly features: readonly ServerFeature[];
  /** The tasks extension, once configured or a tool declared for tasks is registered. */
  readonly tasks: TasksFeature | undefined;
  /** Stateless era: the codec of `requestState` (from `requestStateSecret` and `requestStateTtlMs`). */
  readonly requestStateCodec: RequestStateCodec;
}
