/**
 * The exit codes of the `toolwire` command, and the failure every command throws ({@link CliError}).
 *
 * | code | meaning                                                                    |
 * | ---- | -------------------------------------------------------------------------- |
 * | 0    | success                                                                    |
 * | 1    | tool error: an `isError` result (a gateway's denial is one too)            |
 * | 2    | usage error: bad options or arguments, or a server module that won't load  |
 * | 3    | protocol error: the server answered with a JSON-RPC error (or bad result)  |
 * | 4    | connection failure: spawn failed, connection closed, timeout, version      |
 * | 5    | denied: toolwire's prompt did not approve the call, or credentials refused |
 * | 130  | interrupted by SIGINT (Ctrl-C): what was in flight was cancelled            |
 * | 143  | stopped by SIGTERM: likewise                                               |
 *
 * How a failure is printed (a line on stderr; with `--json`, also one JSON object on stdout) is in
 * `report-failure.ts`.
 * @module
 */
import { LocalErrorCode, ProtocolError, ToolwireError, type JsonObject } from '../protocol/index.js';

/** Exit codes, stable: scripts and the benchmark rely on them. */
export const ExitCode = {
  Success: 0,
  ToolError: 1,
  Usage: 2,
  Protocol: 3,
  Connection: 4,
  Denied: 5,
  /** 128 + SIGINT's number, as a shell reports a command Ctrl-C stopped. */
  Interrupted: 130,
  /** 128 + SIGTERM's number. */
  Terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code section of every help text. */
export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  tool error (the tool returned an isError result; so does a call a gateway denies, expires or
     refuses: the model reads why)
  2  usage error (bad options or arguments, arguments that do not match the tool's input schema,
     an unknown tool or prompt, a server module that does not load, a port in use)
  3  protocol error (a JSON-RPC error from the server, or a result that breaks the protocol)
  4  connection failure (spawn failed, not an MCP server, connection closed, timeout, protocol
     version mismatch)
  5  denied (toolwire's own prompt did not approve the tool call: answered no, or no terminal to
     ask and no --yes; or the server refused the credentials: HTTP 401/403; nothing was run)
  130, 143  stopped by SIGINT (Ctrl-C) or SIGTERM while talking to a server: the requests in flight
     were cancelled and a server command stopped (a second signal exits at once)
With --json, every failure with exit code 2 or more also prints one JSON object on stdout:
  {"error": {"code": "STABLE_CODE", "message": "…", "details": {…}}}`;

/** The stable `error.code` of a CliError that names none, by exit code. */
const DEFAULT_CODES: Readonly<Record<ExitCodeValue, string>> = {
  0: 'OK',
  1: 'TOOL_ERROR',
  2: 'USAGE',
  3: 'PROTOCOL_ERROR',
  4: 'CONNECTION_FAILED',
  5: 'DENIED',
  130: 'INTERRUPTED',
  143: 'INTERRUPTED',
};

export interface CliErrorOptions {
  cause?: unknown;
  /** Extra lines printed on stderr after the message (e.g. the server's stderr, a usage hint). */
  detail?: string;
  /** A stable code for scripts (`--json`), e.g. `UNKNOWN_TOOL`; default by exit code (`USAGE`, …). */
  code?: string;
  /** Facts for scripts, printed as `error.details` with `--json`. */
  details?: JsonObject;
}

/** A failure the CLI reports as one line on stderr (and, with `--json`, one JSON object on stdout). */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: ExitCodeValue;
  readonly detail: string | undefined;
  readonly code: string;
  readonly details: JsonObject | undefined;

  constructor(exitCode: ExitCodeValue, message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.detail = options.detail;
    this.code = options.code ?? DEFAULT_CODES[exitCode];
    this.details = options.details;
  }
}

/**
 * A usage error: exit code 2. `hint` is a command to run, e.g. `npx toolwire call --help`, printed as
 * `See: <hint>` after the `detail` lines.
 */
export function usageError(
  message: string,
  hint?: string,
  options: { code?: string; details?: JsonObject; detail?: string } = {},
): CliError {
  const details = hint === undefined ? options.details : { ...options.details, hint };
  const lines = [options.detail, hint === undefined ? undefined : `See: ${hint}`].filter(
    (line) => line !== undefined,
  );
  return new CliError(ExitCode.Usage, message, {
    ...(lines.length === 0 ? {} : { detail: lines.join('\n') }),
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(details === undefined ? {} : { details }),
  });
}

/** Local error codes that mean the server broke the protocol rather than the connection failing. */
const PROTOCOL_LOCAL_CODES: ReadonlySet<string> = new Set([
  LocalErrorCode.InvalidResult,
  LocalErrorCode.OutputSchemaMismatch,
  LocalErrorCode.TooManyPages,
]);

/** Local error codes of a refusal: by the approval policy, or of the credentials by the server. */
const DENIED_CODES: ReadonlySet<string> = new Set([
  LocalErrorCode.ToolCallDenied,
  LocalErrorCode.Unauthorized,
  LocalErrorCode.Forbidden,
  LocalErrorCode.AuthorizationFailed,
]);

/** The exit code for anything thrown while talking to a server. */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ProtocolError) return ExitCode.Protocol;
  if (error instanceof ToolwireError && DENIED_CODES.has(error.code)) return ExitCode.Denied;
  if (error instanceof ToolwireError && PROTOCOL_LOCAL_CODES.has(error.code)) return ExitCode.Protocol;
  // Timeouts, closed connections, spawn failures, version mismatches, and anything unexpected.
  return ExitCode.Connection;
}
