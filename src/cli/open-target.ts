/**
 * What `tools` and `call` talk to, and how a transport is opened to it.
 *
 * Today a target is a command to spawn (everything after `--`), spoken to over stdio. This is the
 * seam for remote servers: a later change adds `{ kind: 'url' }` to {@link Target}, recognises a
 * URL in {@link parseTarget}, and returns an HTTP transport from {@link openTarget}; the commands
 * need no change.
 * @module
 */
import type { Readable } from 'node:stream';
import type { Transport } from '../protocol/index.js';
import { StdioClientTransport } from '../transports/stdio/index.js';
import { usageError } from './exit-code.js';

/** A server to connect to. */
export type Target = { kind: 'command'; command: string; args: string[] };

export interface OpenTargetOptions {
  /** Pass the server's stderr through to ours (true), or keep it to show on failure (default). */
  inheritStderr?: boolean;
}

/** A transport to the target, plus what the server said on stderr (for error reports). */
export interface OpenedTarget {
  transport: Transport;
  /** The last lines the server wrote on stderr, when it is captured (empty otherwise). */
  stderrTail(): string;
  /** A short description for messages: the command line. */
  readonly description: string;
}

/** Builds a target from the arguments after `--`. */
export function parseTarget(rest: readonly string[] | undefined, helpHint: string): Target {
  const [command, ...args] = rest ?? [];
  if (rest === undefined) throw usageError('missing "-- <command...>": the server to run', helpHint);
  if (command === undefined || command === '') {
    throw usageError('missing the server command after "--"', helpHint);
  }
  return { kind: 'command', command, args };
}

const STDERR_TAIL_BYTES = 8 * 1024;

/** Opens a transport to the target (not started: the client starts it when it connects). */
export function openTarget(target: Target, options: OpenTargetOptions = {}): OpenedTarget {
  switch (target.kind) {
    case 'command':
      return openCommand(target, options);
  }
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
