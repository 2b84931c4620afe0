/**
 * How a failure is printed: `toolwire: <message>` on stderr, then its detail lines; with `--json`, also
 * exactly one JSON object on stdout, so that a script never has to parse the human line:
 *
 * ```json
 * { "error": { "code": "UNKNOWN_TOOL", "message": "the server has no tool \"nope\"", "details": { … } } }
 * ```
 *
 * `code` is a stable string: a CliError's own (`USAGE`, `UNKNOWN_TOOL`, `NOT_AN_MCP_SERVER`, …), a local
 * error's code (`REQUEST_TIMEOUT`, `SPAWN_FAILED`, `UNAUTHORIZED`, …), or for a JSON-RPC error from the
 * server its name (`METHOD_NOT_FOUND`, `INVALID_PARAMS`, `RESOURCE_NOT_FOUND`, … else `SERVER_ERROR`),
 * with the number in `details.jsonrpcCode`.
 * @module
 */
import {
  ErrorCode,
  LocalErrorCode,
  ProtocolError,
  ToolwireError,
  UrlElicitationRequiredError,
  errorMessage,
  isJsonObject,
  type JsonObject,
} from '../protocol/index.js';
import { CliError, exitCodeFor, type ExitCodeValue } from './exit-code.js';
import { printErr, printJson } from './terminal-text.js';

/** The names of the JSON-RPC error codes a server may answer with. */
const JSONRPC_CODE_NAMES: ReadonlyMap<number, string> = new Map([
  [ErrorCode.ParseError, 'PARSE_ERROR'],
  [ErrorCode.InvalidRequest, 'INVALID_REQUEST'],
  [ErrorCode.MethodNotFound, 'METHOD_NOT_FOUND'],
  [ErrorCode.InvalidParams, 'INVALID_PARAMS'],
  [ErrorCode.InternalError, 'INTERNAL_ERROR'],
  [ErrorCode.ResourceNotFound, 'RESOURCE_NOT_FOUND'],
  [ErrorCode.UnsupportedProtocolVersion, 'UNSUPPORTED_PROTOCOL_VERSION'],
  [ErrorCode.RateLimited, 'RATE_LIMITED'],
  [ErrorCode.Forbidden, 'FORBIDDEN'],
  [ErrorCode.UrlElicitationRequired, 'URL_ELICITATION_REQUIRED'],
  [ErrorCode.MissingRequiredClientCapability, 'MISSING_CLIENT_CAPABILITY'],
]);

/** A failed `fetch` in words: its `fetch failed` says little, its cause (`connect ECONNREFUSED …`) more. */
export function describeFetchFailure(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? message : `${message} (${errorMessage(cause)})`;
}

/** The message printed for a failure (without the `toolwire: ` prefix). */
export function describeError(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof UrlElicitationRequiredError) return pagesToOpen(error);
  if (error instanceof ProtocolError)
    return `the server answered with error ${error.code}: ${error.message}${unaskable(error)}`;
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

/** -32042: the pages the server needs the user to go through (each URL on its own line), then a retry. */
function pagesToOpen(error: UrlElicitationRequiredError): string {
  const pages = error.elicitations.map(({ url, message }) => `\n  ${url}  (${message})`).join('');
  const which = error.elicitations.length === 1 ? 'this page' : 'these pages';
  return `the server needs you to open ${which} first, then to run the call again: ${error.message}${pages}`;
}

/** -32021: what the server wanted of the client, and what the CLI can do about it. */
function unaskable(error: ProtocolError): string {
  if (error.code !== ErrorCode.MissingRequiredClientCapability || !isJsonObject(error.data)) return '';
  const required = error.data.requiredCapabilities;
  if (!isJsonObject(required)) return '';
  const hints: string[] = [];
  if (required.elicitation !== undefined)
    hints.push(
      'the server wanted to ask you something, and toolwire answers its questions only on a terminal (stdin is not a TTY)',
    );
  if (required.roots !== undefined) hints.push('the server wanted the folders to work in: pass --root DIR');
  if (required.sampling !== undefined)
    hints.push("the server wanted a model's completion (sampling), which the CLI has no model for");
  return hints.map((hint) => `; ${hint}`).join('');
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

/** The `error` object printed with `--json`: a stable code, the message, and details when there are any. */
export function failureJson(error: unknown): {
  error: { code: string; message: string; details?: JsonObject };
} {
  const message = describeError(error);
  let code = 'INTERNAL';
  let details: JsonObject | undefined;
  if (error instanceof CliError) {
    code = error.code;
    details = error.details;
    const cause = error.cause;
    if (details === undefined && (cause instanceof ProtocolError || cause instanceof ToolwireError)) {
      details = failureJson(cause).error.details;
    }
  } else if (error instanceof ProtocolError) {
    code = JSONRPC_CODE_NAMES.get(error.code) ?? 'SERVER_ERROR';
    details = {
      jsonrpcCode: error.code,
      ...(error.data === undefined ? {} : { data: jsonSafe(error.data) }),
    };
  } else if (error instanceof ToolwireError) {
    code = error.code;
    const safe = error.details === undefined ? undefined : jsonSafe(error.details);
    if (safe !== undefined) details = isJsonObject(safe) ? safe : { value: safe };
  }
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** A JSON copy of `value` (cycles, functions and BigInts dropped); undefined when nothing is left. */
function jsonSafe(value: unknown): unknown {
  const seen = new WeakSet<object>();
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint') return item.toString();
      if (typeof item === 'object' && item !== null) {
        if (seen.has(item)) return undefined;
        seen.add(item);
      }
      return item;
    });
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export interface ReportOptions {
  /** Also print the failure as one JSON object on stdout (`--json`). */
  json?: boolean;
}

/** Prints a failure (stderr; with `json`, also stdout) and returns its exit code. */
export function reportFailure(error: unknown, options: ReportOptions = {}): ExitCodeValue {
  const detail = error instanceof CliError ? error.detail : undefined;
  printErr(`toolwire: ${describeError(error)}\n${detail ? `${detail.trimEnd()}\n` : ''}`);
  if (options.json) printJson(failureJson(error));
  return exitCodeFor(error);
}
