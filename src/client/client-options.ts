/**
 * What a `Client` is configured with (`ClientOptions`; what one `callTool` may add is `CallToolOptions`).
 * @module
 */
import type { Revision } from '../protocol/revisions/index.js';
import type { ClientCapabilities, LoggingMessageParams } from '../protocol/types/lifecycle.js';
import type { ApprovalOptions, ClientAuditRecord } from './approval/index.js';
import type { ClientHandlers } from './client-handlers.js';
import type { ErrorReportLimits } from './error-reports.js';
import type { ClientLink } from './links/client-link.js';

export interface ClientOptions extends ClientHandlers {
  /** Capabilities to declare beyond those implied by the handlers. */
  capabilities?: ClientCapabilities;
  /**
   * `auto` (default): probe with `server/discover` and speak the stateless era (2026-07-28) when the server
   * does, else fall back to the `initialize` handshake. On stdio it also meets servers that refuse any
   * request before `initialize`: one that exits on the probe is started again (once) and gets the
   * handshake; one that does not answer within 300 ms is also sent an `initialize` that only a
   * handshake-era server accepts (it carries the stateless era's `_meta`), while a late answer to the probe
   * still counts. A handshake-era revision: offer only that one. A stateless-era revision: no handshake;
   * `server/discover` is still called, for the server's capabilities and instructions, and must succeed.
   */
  protocolVersion?: 'auto' | Revision;
  /**
   * How long the `server/discover` probe may take before the client falls back to a plain `initialize`
   * (ms, default 5 s). On stdio the client does not wait that long for a silent server (see
   * `protocolVersion`), unless this is 300 ms or less.
   */
  discoverTimeout?: number;
  /** Default timeout for requests, tool calls included, in ms (default 60 s); on expiry the request is cancelled. */
  requestTimeout?: number;
  /** Cap on pages followed by each list method (tools, resources, templates, prompts; default 100). */
  maxListPages?: number;
  /** Cap on the items one listing keeps across its pages (default 100,000); past it: TOO_MANY_PAGES. */
  maxListItems?: number;
  /**
   * Cap on the size (as JSON text) of the items one listing keeps across its pages, and of the cursors it
   * keeps to catch a repeat (default 32 MiB); past it: TOO_MANY_PAGES.
   */
  maxListBytes?: number;
  /**
   * Handshake era: the most the server's questions (elicitation, sampling, roots) being answered at once and
   * read and waiting their turn to start may hold, in bytes of their params' JSON (default 64 MiB). One past
   * it is answered with -32603 saying so as it arrives, and no handler runs: the client takes up to 1,000 at
   * once, each as large as a message may be.
   */
  maxQuestionBytes?: number;
  /** Stateless era: `input_required` rounds answered per request before giving up (default 8). */
  maxInputRounds?: number;
  /**
   * Stateless era: the authorization context (e.g. a digest of the access token) that `cacheScope: "private"`
   * results are cached under; they are never served to another context. Default `''`.
   */
  authContext?: string | (() => string);
  /**
   * Check the `elicitation` handler's answers before they are sent (default true; the spec asks clients to
   * validate them against the form): an answer that is no `ElicitResult` (an action other than the three,
   * content of anything but primitives and string lists) or content the form's `requestedSchema` does not
   * allow fails the question with ClientError INVALID_RESULT, and content for a schema that does not
   * compile with -32602 (the form is compiled when there is content to check). A relay passing the question
   * on (the gateway) leaves it to the server that asked.
   */
  validateElicitation?: boolean;
  /** Server log messages (`notifications/message`). */
  onLog?: (params: LoggingMessageParams) => void;
  /**
   * 2025-11-25: the server finished a URL-mode elicitation it asked for (`notifications/elicitation/complete`),
   * by an `elicitation/create` in URL mode or in a -32042 `UrlElicitationRequiredError`: what waited for it
   * may be retried. Called once per id, and only for ids this server named (the others are ignored, as the
   * spec says).
   */
  onElicitationComplete?: (elicitationId: string) => void;
  /** Errors that reach no caller (at most `errorReports.perKind` of a kind per interval). */
  onError?: (error: Error) => void;
  /**
   * How many errors `onError` hears: each kind (a name and code, else the start of a message) the first
   * `perKind` times (default 10) in each `intervalMs` (default 10 s); at the interval's end, one `ClientError`
   * `REPORTS_DROPPED` per kind says how many more there were (`details: DroppedReports`). A server failing
   * at full speed (answers to ids never sent, questions whose answers it does not read) cannot make the
   * client spend its time reporting.
   */
  errorReports?: ErrorReportLimits;
  /** Things worth a warning, e.g. a tool left out of `listTools()` for invalid `x-mcp-header` declarations (default: `onError`). */
  onWarning?: (message: string) => void;
  /**
   * Decides, before anything is sent, whether each `tools/call` may run: rules, trusted annotations and an
   * approver for `ask` (see ApprovalOptions). A refusal throws ClientError TOOL_CALL_DENIED. Without it,
   * every call goes through.
   */
  approval?: ApprovalOptions;
  /**
   * One audit record per tool call: decision, argument digest, duration, outcome (never the arguments).
   * The audit is the outermost link, so it sees every decision (the approval's and the links').
   */
  onAudit?: (record: ClientAuditRecord) => void;
  /**
   * Middleware around every request and every tool call, in order (more with `client.use`). They run
   * inside the audit and the approval gate and outside the result checks (see `ClientLink`).
   */
  links?: readonly ClientLink[];
  /**
   * The most a tool result may weigh, in bytes of JSON (default 16 MiB; `Infinity` for no cap). A bigger
   * result throws ClientError MESSAGE_TOO_LARGE and is not returned.
   */
  maxResultBytes?: number;
  /**
   * Opts in to the skills extension (SEP-2640): declares `extensions["io.modelcontextprotocol/skills"]` in
   * the client's capabilities and enables `listSkills` / `loadSkill`. Off by default (nothing declared).
   */
  skills?: boolean;
}
