/**
 * What `tools` and `call` talk to, and how a transport is opened to it: a command to spawn
 * (everything after `--`), spoken to over stdio, or an http(s) URL, spoken to over Streamable HTTP
 * with a fallback to the legacy HTTP+SSE transport.
 * @module
 */
import type { Readable } from 'node:stream';
import type { Transport } from '../protocol/index.js';
import { FallbackHttpClientTransport } from '../transports/http-client/index.js';
import { StdioClientTransport } from '../transports/stdio/index.js';
import { usageError } from './exit-code.js';

/** A server to connect to. */
export type Target =
  | { kind: 'command'; command: string; args: string[] }
  | { kind: 'url'; url: URL; headers: Record<string, string> };

export interface OpenTargetOptions {
  /** Pass the server's stderr through to ours (true), or keep it to show on failure (default). */
  inheritStderr?: boolean;
  /**
   * An OAuth access token for URL targets (from `TOOLWIRE_TOKEN`: tokens stay out of the command line,
   * where `ps` and shell history would show them). An `Authorization` given with `--header` wins.
   */
  token?: string | undefined;
}

/** A transport to the target, plus what the server said on stderr (for error reports). */
export interface OpenedTarget {
  transport: Transport;
  /** The last lines the server wrote on stderr, when it is captured (empty otherwise). */
  stderrTail(): string;
  /** A short description for messages: the command line, or the URL. */
  readonly description: string;
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

/** Splits the URL target (at most one) from the other positionals. */
export function takeUrlTarget(
  positionals: readonly string[],
  helpHint: string,
): { url: string | undefined; others: string[] } {
  const urls = positionals.filter(isUrlTarget);
  if (urls.length > 1) throw usageError(`more than one server URL: ${urls.join(', ')}`, helpHint);
  return { url: urls[0], others: positionals.filter((arg) => !isUrlTarget(arg)) };
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
    headers[name] = value.slice(colon + 1).trim();
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
      return openUrl(target, options.token);
  }
}

function openUrl(target: Target & { kind: 'url' }, token: string | undefined): OpenedTarget {
  const shown = new URL(target.url);
  shown.username = '';
  shown.password = '';
  const authorized = Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization');
  return {
    transport: new FallbackHttpClientTransport({
      url: target.url,
      headers: target.headers,
      ...(token && !authorized ? { bearer: token } : {}),
    }),
    stderrTail: () => '',
    description: shown.href,
  };
}

function openCommand(target: Target & { kind: 'command' }, options: OpenTargetOptions): OpenedTarget {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    stderr: options.inheritStderr ? 'inherit' : 'pipe',
  });
  const tail = options.inheritStderr ? undefined : captureTail(transport.stderr);
  return {
    transport,
    stderrTail: () => tail?.() ?? '',
    description: [target.command, ...target.args].map(quoteArg).join(' '),
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

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
