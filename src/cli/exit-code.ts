/**
 * The exit codes of the `toolwire` command, and how every failure maps to one of them.
 *
 * | code | meaning                                                                    |
 * | ---- | -------------------------------------------------------------------------- |
 * | 0    | success                                                                    |
 * | 1    | tool error: the tool ran and returned an `isError` result                  |
 * | 2    | usage error: bad options or arguments, or a server module that won't load  |
 * | 3    | protocol error: the server answered with a JSON-RPC error (or bad result)  |
 * | 4    | connection failure: spawn failed, connection closed, timeout, version      |
 * | 5    | denied: the call was not approved, or the server refused the credentials   |
 * @module
 */
import { LocalErrorCode, ProtocolError, ToolwireError, errorMessage } from '../protocol/index.js';

/** Exit codes, stable: scripts and the benchmark rely on them. */
export const ExitCode = {
  Success: 0,
  ToolError: 1,
  Usage: 2,
  Protocol: 3,
  Connection: 4,
  Denied: 5,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code section of every help text. */
export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  tool error (the tool returned an isError result)
  2  usage error (bad options or arguments, a server module that does not load)
  3  protocol error (a JSON-RPC error from the server, or a result that breaks the protocol)
  4  connection failure (spawn failed, connection closed, timeout, protocol version mismatch)
  5  denied (the tool call was not approved, or the server refused the credentials:
     HTTP 401/403; nothing was run)`;

/** A failure the CLI reports as one line on stderr, with its exit code. */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: ExitCodeValue;
  /** Extra lines printed after the message (e.g. the server's stderr, a usage hint). */
  readonly detail: string | undefined;

  constructor(exitCode: ExitCodeValue, message: string, options?: { cause?: unknown; detail?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.detail = options?.detail;
  }
}

/** A usage error: exit code 2. `hint` names the help to read, e.g. `toolwire call --help`. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError(ExitCode.Usage, message, hint ? { detail: `See: ${hint}` } : undefined);
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

/** The message printed for a failure (without the `toolwire: ` prefix). */
export function describeError(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof ProtocolError) return `the server answered with error ${error.code}: ${error.message}`;
  if (error instanceof ToolwireError) {
    if (error.code === LocalErrorCode.RequestTimeout) return `timed out: ${error.message}`;
    if (error.code === LocalErrorCode.Unauthorized || error.code === LocalErrorCode.Forbidden)
      return credentialsRefused(error);
    if (error.code === LocalErrorCode.UnsupportedProtocolVersion) {
      return `protocol version mismatch: ${error.message}`;
    }
    return error.message;
  }
  return errorMessage(error);
}

/** What to do about a 401/403: which scopes the server asks for, where its OAuth metadata is. */
function credentialsRefused(error: ToolwireError): string {
  const details = (error.details ?? {}) as {
    status?: number;
    error?: string;
    errorDescription?: string;
    scope?: string;
    resourceMetadata?: string;
  };
  const why = [details.error, details.errorDescription].filter(Boolean).join(': ');
  const lines = [
    details.status === 403
      ? `the server refused the access token${why ? ` (${why})` : ''}`
      : `the server needs an OAuth access token${why ? ` (${why})` : ''}`,
  ];
  if (details.scope) lines.push(`scopes to ask for: ${details.scope}`);
  if (details.resourceMetadata) lines.push(`its OAuth metadata: ${details.resourceMetadata}`);
  lines.push('pass a token in TOOLWIRE_TOKEN (or --header "Authorization: Bearer …")');
  return lines.join('; ');
}

/** Prints a failure on stderr (`toolwire: message`, then its detail) and returns its exit code. */
export function reportFailure(error: unknown): ExitCodeValue {
  const detail = error instanceof CliError ? error.detail : undefined;
  process.stderr.write(`toolwire: ${describeError(error)}\n${detail ? `${detail.trimEnd()}\n` : ''}`);
  return exitCodeFor(error);
}
