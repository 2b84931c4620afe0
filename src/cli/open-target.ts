/**
 * What `tools` and `call` talk to, and how a transport is opened to it: a command to spawn
 * (everything after `--`), spoken to over stdio, or an http(s) URL, spoken to over Streamable HTTP
 * with a fallback to the legacy HTTP+SSE transport.
 * @module
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Transport } from '../protocol/index.js';
import { FallbackHttpClientTransport, type OAuthClient } from '../transports/http-client/index.js';
import { StdioClientTransport } from '../transports/stdio/index.js';
import { usageError } from './exit-code.js';
import { printErr } from './terminal-text.js';
import { WatchedTransport, type WatchReport } from './watched-transport.js';

/** A server to connect to. */
export type Target =
  | { kind: 'command'; command: string; args: string[] }
  | { kind: 'url'; url: URL; headers: Record<string, string> };

export interface OpenTargetOptions {
  /**
   * Show the server's stderr on ours as it comes, line by line, every character that would steer a
   * terminal written out as its escape (true); else (default) only keep it, to show on failure. Its last
   * lines are kept for failure reports either way.
   */
  showStderr?: boolean;
  /**
   * How long closing waits for a server command to exit after its stdin ends, then after SIGTERM, before
   * SIGKILL (default {@link SHUTDOWN_STEP_MS}).
   */
  shutdownTimeoutMs?: number | undefined;
  /**
   * An OAuth access token for URL targets (from `TOOLWIRE_TOKEN`: tokens stay out of the command line,
   * where `ps` and shell history would show them). An `Authorization` given with `--header` wins.
   */
  token?: string | undefined;
  /** An OAuth client for URL targets (see `toolwire login`); `token` and an `Authorization` header win. */
  oauth?: OAuthClient | undefined;
  /** Hears of the first line a server command prints on stdout that is not JSON (see WatchedTransport). */
  onPlainText?: (sample: string | undefined) => void;
}

/** A transport to the target, plus what the server said on stderr (for error reports). */
export interface OpenedTarget {
  transport: Transport;
  /** The last lines the server wrote on stderr, when it is captured (empty otherwise). */
  stderrTail(): string;
  /** A short description for messages: the command line, or the URL. */
  readonly description: string;
  /** What a server command did while connecting (command targets only). */
  readonly watch?:
    | (WatchReport & { readonly echo: Promise<void>; readonly flooded: Promise<void>; givingUp: boolean })
    | undefined;
}

export interface UrlTargetOptions {
  /** A positional that {@link isUrlTarget}: the server's MCP endpoint. */
  url?: string | undefined;
  /** `--header 'Name: value'` values, for URL targets. */
  headers?: readonly string[] | undefined;
}

/** Whether a command-line argument names an HTTP server rather than a tool argument. */
export function isUrlTarget(arg: string): boolean {
  return /^https?:\/\//i.test(arg);
}

/**
 * Splits the server URL from the other positionals: the last positional that {@link isUrlTarget} (so that
 * `read URI URL` may read an http(s) resource). With `--`, the server is the command and no positional is.
 */
export function takeUrlTarget(
  positionals: readonly string[],
  rest: readonly string[] | undefined,
): { url: string | undefined; others: string[] } {
  if (rest !== undefined) return { url: undefined, others: [...positionals] };
  const at = positionals.findLastIndex(isUrlTarget);
  if (at === -1) return { url: undefined, others: [...positionals] };
  return { url: positionals[at], others: positionals.filter((_, index) => index !== at) };
}

/** Builds a target from a URL, or from the arguments after `--`. */
export function parseTarget(
  rest: readonly string[] | undefined,
  helpHint: string,
  options: UrlTargetOptions = {},
): Target {
  const headerArgs = options.headers ?? [];
  if (options.url !== undefined) {
    if (rest !== undefined)
      throw usageError('give either a server URL or "-- <command...>", not both', helpHint);
    return { kind: 'url', url: parseUrl(options.url, helpHint), headers: parseHeaders(headerArgs, helpHint) };
  }
  if (headerArgs.length > 0) throw usageError('--header applies only to a server URL', helpHint);
  const [command, ...args] = rest ?? [];
  if (rest === undefined) {
    throw usageError('missing "-- <command...>" or a URL: the server to talk to', helpHint);
  }
  if (command === undefined || command === '') {
    throw usageError('missing the server command after "--"', helpHint);
  }
  return { kind: 'command', command, args };
}

function parseUrl(text: string, helpHint: string): URL {
  try {
    return new URL(text);
  } catch {
    throw usageError(`not a valid URL: ${text}`, helpHint);
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `['Authorization: Bearer x']` → `{ Authorization: 'Bearer x' }`. */
function parseHeaders(values: readonly string[], helpHint: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = value.slice(0, colon).trim();
    if (colon === -1 || !HEADER_NAME.test(name)) {
      throw usageError(`--header must look like "Name: value", got "${value}"`, helpHint);
    }
    const headerValue = value.slice(colon + 1).trim();
    // A line break would end the header (or smuggle another); fetch refuses it as a connection failure.
    if (/[\r\n\0]/.test(headerValue)) {
      throw usageError(`--header ${name}: the value may not hold a CR, LF or NUL character`, helpHint);
    }
    headers[name] = headerValue;
  }
  return headers;
}

const STDERR_TAIL_BYTES = 8 * 1024;

/** Opens a transport to the target (not started: the client starts it when it connects). */
export function openTarget(target: Target, options: OpenTargetOptions = {}): OpenedTarget {
  switch (target.kind) {
    case 'command':
      return openCommand(target, options);
    case 'url':
      return openUrl(target, options.token, options.oauth);
  }
}

/** Whether the headers given carry an `Authorization`. */
export function authorizes(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

function openUrl(
  target: Target & { kind: 'url' },
  token: string | undefined,
  oauth: OAuthClient | undefined,
): OpenedTarget {
  const shown = new URL(target.url);
  shown.username = '';
  shown.password = '';
  const authorized = authorizes(target.headers);
  return {
    transport: new FallbackHttpClientTransport({
      url: target.url,
      headers: target.headers,
      ...(token && !authorized ? { bearer: token } : oauth && !authorized ? { oauth } : {}),
    }),
    stderrTail: () => '',
    description: shown.href,
  };
}

/**
 * How long closing waits for the server to exit after its stdin ends, then after SIGTERM: the command is
 * about to exit, and a server that ignores the end of its input should not hold it for long.
 */
const SHUTDOWN_STEP_MS = 1_000;

function openCommand(target: Target & { kind: 'command' }, options: OpenTargetOptions): OpenedTarget {
  const stdio = new StdioClientTransport({
    command: target.command,
    args: target.args,
    // Never 'inherit': a server's bytes would reach the terminal as they are (retitle it, clear it).
    stderr: 'pipe',
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? SHUTDOWN_STEP_MS,
  });
  const tail = captureTail(stdio.stderr);
  if (options.showStderr && stdio.stderr) showLines(stdio.stderr, printErr);
  const watch = new WatchedTransport(
    stdio,
    {
      exitStatus: () => stdio.exitStatus,
      stdoutBytes: () => stdio.stdoutBytes,
      terminate: () => {
        // Not reaped yet (no exit status): the pid is still this child's.
        if (stdio.exitStatus !== undefined || stdio.pid === undefined) return;
        try {
          process.kill(stdio.pid, 'SIGTERM');
        } catch {
          // it has just exited
        }
      },
    },
    options.onPlainText,
  );
  return {
    transport: watch,
    stderrTail: () => tail?.() ?? '',
    description: [target.command, ...target.args].map(quoteArg).join(' '),
    watch,
  };
}

/** Reads a stream to its end, keeping its last bytes (a chatty server must never block on a full pipe). */
function captureTail(stream: Readable | null): (() => string) | undefined {
  if (!stream) return undefined;
  let kept = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    kept = Buffer.concat([kept, chunk]);
    if (kept.length > STDERR_TAIL_BYTES) kept = kept.subarray(kept.length - STDERR_TAIL_BYTES);
  });
  stream.on('error', () => undefined);
  return () => kept.toString('utf8');
}

/** A line of a server's stderr longer than this is shown in pieces of this many characters (nothing grows unbounded). */
const SHOWN_LINE_CHARS = 4 * 1024;

/** A line's start is shown once this long passes without more bytes (a server that says "Loading..." and hangs). */
export const SHOWN_PARTIAL_IDLE_MS = 200;

/**
 * Shows a stream's text through `write`, one whole line at a time (a line longer than
 * {@link SHOWN_LINE_CHARS} in pieces), the rest when it ends: what it says is not cut in two by its chunks
 * (a CRLF, a UTF-8 character), nor interleaved mid-line with what the command writes itself. A line's start
 * is shown as it is once `idleMs` pass without more bytes, never half a UTF-8 character (the decoder keeps
 * it) nor half a surrogate pair; the rest of that line follows when it comes.
 */
export function showLines(
  stream: Readable,
  write: (text: string) => void,
  idleMs: number = SHOWN_PARTIAL_IDLE_MS,
): void {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let idle: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    idle = undefined;
    // Not between the two halves of a surrogate pair (the decoder never ends on one; a cut piece might).
    const end = isHighSurrogate(partial.charCodeAt(partial.length - 1)) ? partial.length - 1 : partial.length;
    if (end === 0) return;
    write(partial.slice(0, end));
    partial = partial.slice(end);
  };
  const take = (text: string) => {
    partial += text;
    const end = partial.lastIndexOf('\n');
    if (end !== -1) {
      write(partial.slice(0, end + 1));
      partial = partial.slice(end + 1);
    }
    while (partial.length >= SHOWN_LINE_CHARS) {
      // Not between the two halves of a surrogate pair.
      const cut = isHighSurrogate(partial.charCodeAt(SHOWN_LINE_CHARS - 1))
        ? SHOWN_LINE_CHARS - 1
        : SHOWN_LINE_CHARS;
      write(partial.slice(0, cut));
      partial = partial.slice(cut);
    }
  };
  stream.on('data', (chunk: Buffer) => {
    take(decoder.write(chunk));
    if (idle !== undefined) clearTimeout(idle);
    // Unref'd: a quiet server's partial line never keeps the command alive.
    idle = partial ? setTimeout(flush, idleMs).unref() : undefined;
  });
  stream.on('end', () => {
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
    take(decoder.end());
    if (partial) write(partial);
    partial = '';
  });
  stream.on('error', () => undefined);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The target as it is written on a command line: the URL, or `-- <command...>` quoted for a shell. */
export function targetArgs(target: Target): string {
  return target.kind === 'url'
    ? target.url.href
    : ['--', target.command, ...target.args].map((arg, i) => (i === 0 ? arg : quoteArg(arg))).join(' ');
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
