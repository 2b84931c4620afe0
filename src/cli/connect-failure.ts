/**
 * Why a connection failed, in words a person can act on: a command that is not an MCP server says so
 * (it echoes what it is sent, it printed plain text, it exited before answering, it said nothing within
 * `--timeout`), with the command's exit code and the last lines of its stderr; anything else is named
 * after the error the client reported. Exit code 4 (connection failure), unless the error says otherwise
 * (refused credentials: 5; a JSON-RPC error during the handshake: 3).
 * @module
 */
import { ErrorCode, ProtocolError, type JsonObject } from '../protocol/index.js';
import type { ExitStatus } from '../transports/stdio/index.js';
import { CliError, ExitCode, exitCodeFor } from './exit-code.js';
import { describeError, failureJson } from './report-failure.js';
import type { WatchReport } from './watched-transport.js';

/** Lines of the server's stderr shown with a failure. */
const STDERR_LINES = 12;

/** What the connection saw, for the report. */
export interface ConnectAttempt {
  /** A short description of the target: the command line, or the URL. */
  description: string;
  /** The server's stderr, as captured (empty when not captured). */
  stderr: string;
  /** What the command did while we connected (command targets). */
  watch?: WatchReport | undefined;
  /** The first error the transport reported, if any (not plain-text lines: the watch counts those). */
  transportError?: Error | undefined;
  /** The `--timeout` that bounded the connect, in ms. */
  timeout: number;
  /** Whether the failure is that timeout running out. */
  timedOut: boolean;
}

/** The failure of a connect (`during: 'connect'`) or of later work on the connection (`'work'`). */
export function connectFailure(
  error: unknown,
  attempt: ConnectAttempt,
  during: 'connect' | 'work',
): CliError {
  const stderr = lastLines(attempt.stderr, STDERR_LINES);
  const facts: JsonObject = { target: attempt.description };
  const exit = attempt.watch?.exit;
  if (exit) facts.exit = { code: exit.code, signal: exit.signal };
  if (attempt.watch?.plainSample !== undefined) facts.plainText = attempt.watch.plainSample;
  if (stderr) facts.stderr = stderr;
  const detail = stderr ? `server stderr (last lines):\n${indent(stderr)}` : undefined;
  const make = (exitCode: CliError['exitCode'], code: string | undefined, message: string) =>
    new CliError(exitCode, message, {
      cause: error,
      details: facts,
      ...(code === undefined ? {} : { code }),
      ...(detail === undefined ? {} : { detail }),
    });

  const what = `the command "${attempt.description}"`;
  const watch = attempt.watch;
  if (during === 'connect' && watch && !watch.answered) {
    const printed =
      watch.plainLines > 0
        ? `it printed plain text on stdout${watch.plainSample ? ` ("${watch.plainSample}")` : ''}, not MCP messages`
        : watch.oversizedLines > 0
          ? 'it printed lines on stdout too long to be MCP messages'
          : watch.stdoutBytes > 0
            ? `it printed ${watch.stdoutBytes} bytes on stdout and no whole line, not MCP messages`
            : undefined;
    if (watch.echoed) {
      return make(
        ExitCode.Connection,
        'NOT_AN_MCP_SERVER',
        `${what} is not an MCP server: it echoes back what it is sent`,
      );
    }
    if (exit) {
      const ended = `${printed ? 'and ' : ''}exited (${describeExit(exit)}) before answering the MCP handshake`;
      return printed
        ? make(ExitCode.Connection, 'NOT_AN_MCP_SERVER', `${what} is not an MCP server: ${printed}, ${ended}`)
        : make(ExitCode.Connection, 'SERVER_EXITED', `${what} ${ended}`);
    }
    const lines = watch.plainLines > 0 ? watch.plainLines : watch.oversizedLines;
    if (printed && lines > 0 && !attempt.timedOut) {
      return make(
        ExitCode.Connection,
        'NOT_AN_MCP_SERVER',
        `${what} is not an MCP server: ${printed}: ${lines} lines and no answer to the MCP handshake`,
      );
    }
    if (attempt.timedOut) {
      const silent = `did not answer the MCP handshake within ${attempt.timeout} ms`;
      return printed
        ? make(
            ExitCode.Connection,
            'NOT_AN_MCP_SERVER',
            `${what} is not an MCP server: ${printed}, and ${silent}`,
          )
        : make(
            ExitCode.Connection,
            'CONNECT_TIMEOUT',
            `${what} ${silent}; it printed nothing on stdout (is it an MCP server that speaks stdio?)`,
          );
    }
  }
  if (during === 'connect' && attempt.timedOut) {
    return make(
      ExitCode.Connection,
      'CONNECT_TIMEOUT',
      `could not connect to ${attempt.description}: no answer to the MCP handshake within ${attempt.timeout} ms`,
    );
  }
  const reasons = [describeError(error)];
  const extra = attempt.transportError && describeError(attempt.transportError);
  if (extra && extra !== reasons[0]) reasons.push(extra);
  const message =
    during === 'connect'
      ? `could not connect to ${attempt.description}: ${reasons.join('; ')}`
      : `${reasons.join('; ')} (server: ${attempt.description})`;
  // Named after the error itself (SPAWN_FAILED, REQUEST_TIMEOUT, UNAUTHORIZED, METHOD_NOT_FOUND, …).
  const { code, details } = failureJson(error).error;
  if (details) Object.assign(facts, { ...details, ...facts });
  return make(exitCodeFor(error), code === 'INTERNAL' ? undefined : code, message);
}

/** Whether the transport error is one the report should name (plain-text lines are the watch's). */
export function isReportedTransportError(error: Error): boolean {
  return !(error instanceof ProtocolError && error.code === ErrorCode.ParseError);
}

export function describeExit(status: ExitStatus): string {
  return status.signal ? `signal ${status.signal}` : `exit code ${String(status.code)}`;
}

function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-count).join('\n').trim() === '' ? '' : lines.slice(-count).join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
