/**
 * The client end of the stdio transport: spawns the server process and talks to it over its
 * stdin and stdout, one JSON message per line.
 * @module
 */
import { withoutStack } from '../../protocol/without-stack.js';
import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { LocalErrorCode, asError, errorMessage } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Transport } from '../../protocol/transport.js';
import { QueuedOutput } from '../queued-output.js';
import { TransportError } from '../transport-error.js';
import { LineDecoder, serializeMessage, type DecodedItem } from './line-decoder.js';
import { LineWriter } from './line-writer.js';
import { buildEnvironment } from './child-environment.js';
import { stopChild } from './stop-child.js';

export interface StdioClientTransportOptions {
  /** The executable; spawned directly, without a shell. */
  command: string;
  args?: string[];
  /**
   * Variables merged over the default environment. By default the child inherits all of
   * `process.env`; with `inheritEnv: false` it gets only `SAFE_ENV_VARS` (PATH, HOME, …).
   */
  env?: Record<string, string>;
  /** Default true: the child inherits all of `process.env`. False: only a small safe set. */
  inheritEnv?: boolean;
  cwd?: string;
  /**
   * The child's stderr: passed through to ours (`'inherit'`, default), exposed as
   * {@link StdioClientTransport.stderr} (`'pipe'`; read it, or a chatty child may block), or dropped.
   */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** The largest incoming line, in bytes. Default 4 MiB. */
  maxMessageSize?: number;
  /** How long `close()` waits at each shutdown step before escalating. Default 2000 ms. */
  shutdownTimeoutMs?: number;
  /**
   * Bytes (characters of JSON text) sent and not yet taken by the server's stdin, at which `send` refuses
   * more (a server that stopped reading). Default 8 MiB, as the server's `maxQueuedBytes`.
   */
  maxQueuedBytes?: number;
  /** Messages sent and not yet taken by the server's stdin, at which `send` refuses more. Default 4096. */
  maxQueuedMessages?: number;
}

/** How the child ended: an exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Grace period for the child's stdio to close after it exited (a grandchild may hold them), and for it to
 * exit after it closed its stdout (most often it is exiting: its exit is reported as such).
 */
const STREAM_CLOSE_GRACE_MS = 100;

/**
 * Spawns an MCP server and exchanges newline-delimited JSON with it.
 * If the child exits without `close()`, `onerror` gets a `TransportError` `CONNECTION_CLOSED`
 * naming the exit code or signal, then `onclose` fires; `restart()` may then start it again. A child
 * that closes its stdout and does not exit sends nothing more either (the spec's stdio shutdown begins
 * so): `onerror` gets a `CONNECTION_CLOSED` saying so, `onclose` fires, and the child is shut down as
 * `close()` does it (`close()` resolves once it exited). Lines
 * from the child that are not JSON or are too large are reported through `onerror`; the connection
 * lives on. What waits for the child to read its stdin is bounded (`maxQueuedBytes`,
 * `maxQueuedMessages`): at either limit `send` rejects at once with a `TransportError` `SEND_FAILED`.
 */
export class StdioClientTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly sessionId: string | undefined = undefined;

  private readonly options: StdioClientTransportOptions;
  private readonly stderrStream: PassThrough | null;
  /** The stderr of each process still piped into `stderrStream`. */
  private readonly stderrSources = new Set<Readable>();
  private readonly shutdownTimeoutMs: number;
  /** What may wait for the child to read its stdin (the writer does the counting). */
  private readonly limits: QueuedOutput;
  private child: ChildProcess | undefined;
  private writer: LineWriter | undefined;
  private state: 'idle' | 'starting' | 'open' | 'closing' | 'closed' = 'idle';
  private startPromise: Promise<void> | undefined;
  private closePromise: Promise<void> | undefined;
  private status: ExitStatus | undefined;
  private exited: Promise<void> = Promise.resolve();
  private finished: Promise<void> = Promise.resolve();
  /** The shutdown of a child that closed its stdout (see `stdoutClosed`), under way or done. */
  private reaping: Promise<void> = Promise.resolve();
  private closeFired = false;
  private readBytes = 0;

  constructor(options: StdioClientTransportOptions) {
    if (!options.command) throw new TypeError('StdioClientTransport: command is required');
    this.options = options;
    this.stderrStream = options.stderr === 'pipe' ? new PassThrough() : null;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 2000;
    this.limits = new QueuedOutput(options);
  }

  /**
   * The child's stderr when `stderr: 'pipe'` (available before `start()`), else null. It ends when the
   * transport closes; after a `restart()` it carries the new process's stderr too.
   */
  get stderr(): Readable | null {
    return this.stderrStream;
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Bytes read from the child's stdout so far (whatever they were: lines, or text with no line end). */
  get stdoutBytes(): number {
    return this.readBytes;
  }

  /** How the child ended, once it has. */
  get exitStatus(): ExitStatus | undefined {
    return this.status;
  }

  start(): Promise<void> {
    if (this.state !== 'idle') {
      return Promise.reject(
        new TransportError(LocalErrorCode.AlreadyConnected, 'The stdio transport was already started'),
      );
    }
    this.state = 'starting';
    this.startPromise = this.spawnChild();
    return this.startPromise;
  }

  /**
   * Starts the server process again, with the same command, arguments, environment and working
   * directory, after it exited on its own (`onclose` has fired; not after `close()`). The same
   * transport then carries messages to and from the new process, and `onclose` fires again when it
   * ends. The client uses it when a handshake-era server exits on the stateless era's probe (a
   * request before `initialize`). Call it from `onclose` to keep `stderr` (`'pipe'`) open for the
   * new process; later, the new process's stderr is dropped.
   */
  restart(): Promise<void> {
    if (this.state !== 'closed' || this.closePromise || !this.child) {
      return Promise.reject(
        new TransportError(
          this.closePromise ? LocalErrorCode.ConnectionClosed : LocalErrorCode.AlreadyConnected,
          this.closePromise
            ? 'The stdio transport was closed'
            : 'The server process can be restarted only after it exited',
        ),
      );
    }
    this.state = 'starting';
    this.status = undefined;
    this.closeFired = false;
    this.startPromise = this.spawnChild();
    return this.startPromise;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    // Not async: the promise is the writer's own (shared by the lines of one tick).
    if (this.state === 'idle' || this.state === 'starting' || !this.writer) {
      return Promise.reject(
        new TransportError(LocalErrorCode.NotConnected, 'The stdio transport is not started'),
      );
    }
    if (this.state !== 'open') {
      return Promise.reject(
        new TransportError(LocalErrorCode.ConnectionClosed, 'The server process connection is closed'),
      );
    }
    const writer = this.writer;
    const { maxBytes, maxMessages } = this.limits;
    if (writer.queuedBytes >= maxBytes || writer.queuedMessages >= maxMessages) {
      // The child does not read its stdin: what it has not taken is all the memory it may hold here.
      return Promise.reject(notReading(writer.queuedBytes, writer.queuedMessages, maxBytes, maxMessages));
    }
    try {
      return writer.write(serializeMessage(message));
    } catch (error) {
      return Promise.reject(asError(error)); // e.g. a BigInt in it
    }
  }

  /**
   * Shuts the server down as the MCP spec describes: ends its stdin, waits up to
   * `shutdownTimeoutMs` for it to exit, then sends SIGTERM, waits again, then SIGKILL.
   * Resolves once the process has exited; calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  private async spawnChild(): Promise<void> {
    const { command, args = [], cwd, env, inheritEnv = true } = this.options;
    // Loaded here, not with the module: a stdio server shares this module's chunk and never spawns
    // (node:child_process is ≈2 ms of its cold start).
    const { spawn } = await import('node:child_process');
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env: buildEnvironment(env, inheritEnv),
        stdio: ['pipe', 'pipe', this.options.stderr ?? 'inherit'],
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      this.state = 'closed';
      throw spawnFailed(command, error);
    }
    await new Promise<void>((resolve, reject) => {
      const onSpawn = (): void => {
        child.removeListener('error', onError);
        resolve();
      };
      const onError = (error: Error): void => {
        child.removeListener('spawn', onSpawn);
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
        this.state = 'closed';
        reject(spawnFailed(command, error));
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
    this.attach(child);
  }

  private attach(child: ChildProcess): void {
    const stdin = child.stdin;
    const stdout = child.stdout;
    if (!stdin || !stdout) throw new Error('unreachable: stdio pipes were requested');
    this.child = child;
    // One decoder per process: a line the last one left unfinished is not the new one's.
    const decoder = new LineDecoder(
      this.options.maxMessageSize === undefined ? {} : { maxMessageSize: this.options.maxMessageSize },
    );
    this.writer = new LineWriter(stdin, (error) => this.report(error));

    let onExit!: () => void;
    const exited = new Promise<void>((resolve) => (onExit = resolve));
    this.exited = exited;
    let onFinish!: () => void;
    this.finished = new Promise<void>((resolve) => (onFinish = resolve));
    let hasExited = false;
    /** This child's end was reported (once; never to the connection of a process started after it). */
    let ended = false;
    const end = (report?: TransportError): void => {
      if (ended) return;
      ended = true;
      if (this.child === child) this.finalize(report);
    };
    let graceTimer: NodeJS.Timeout | undefined;
    let stdoutTimer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(graceTimer);
      clearTimeout(stdoutTimer);
      child.removeListener('close', finish);
      stdout.destroy();
      end();
      onFinish();
    };
    /**
     * The child closed its stdout and did not exit: it is gone for this connection, and shut down. Decided
     * after the next poll of I/O (`setImmediate` from the grace timer): a process held back longer than the
     * grace runs its due timers before the I/O that would tell it the child exited meanwhile, and would
     * report an exit as a process that runs on.
     */
    const stdoutClosed = (): void => {
      if (ended || hasExited || this.child !== child || this.state !== 'open') return;
      this.writer?.close(
        new TransportError(LocalErrorCode.ConnectionClosed, 'The server process connection is closed'),
      );
      this.reaping = stopChild(child, exited, this.shutdownTimeoutMs);
      end(
        new TransportError(
          LocalErrorCode.ConnectionClosed,
          'The server process closed its stdout without exiting; it is being shut down',
        ),
      );
    };

    child.on('exit', (code, signal) => {
      hasExited = true;
      if (this.child === child) this.status = { code, signal };
      onExit();
      graceTimer = setTimeout(finish, STREAM_CLOSE_GRACE_MS);
    });
    child.on('close', finish);
    child.on('error', (error) => this.report(error));
    stdin.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE: the child stopped reading; its exit is reported on its own.
      if (error.code !== 'EPIPE') this.report(error);
    });
    // Once closing, nothing read is passed on: what the child still prints is drained, not parsed (a
    // command flooding its stdout would otherwise keep the shutdown's timers waiting behind its lines).
    stdout.on('data', (chunk: Buffer) => {
      this.readBytes += chunk.length;
      if (this.state === 'open') this.dispatch(decoder.push(chunk));
    });
    stdout.on('end', () => {
      this.dispatch(decoder.end());
      if (!hasExited) stdoutTimer = setTimeout(() => setImmediate(stdoutClosed), STREAM_CLOSE_GRACE_MS);
    });
    stdout.on('error', (error) => this.report(error));
    // Not ended with the child: a restart pipes the next one in (see fireClose).
    const childStderr = child.stderr;
    if (this.stderrStream && !this.stderrStream.writableEnded && childStderr) {
      this.stderrSources.add(childStderr);
      childStderr.once('close', () => this.stderrSources.delete(childStderr));
      childStderr.pipe(this.stderrStream, { end: false });
    }
    this.state = 'open';
  }

  private async shutdown(): Promise<void> {
    if (this.state === 'starting') await this.startPromise?.catch(() => {});
    const child = this.child;
    if (!child || this.state === 'closed') {
      this.state = 'closed';
      this.fireClose();
      await this.reaping;
      return;
    }
    this.state = 'closing';
    this.writer?.close(new TransportError(LocalErrorCode.ConnectionClosed, 'The stdio transport is closed'));
    if (!this.status) await stopChild(child, this.exited, this.shutdownTimeoutMs);
    await this.finished;
    await this.reaping;
  }

  /**
   * The child is gone (it exited and its output was read, or it closed its stdout: `report`): report it
   * when unexpected, then close.
   */
  private finalize(report?: TransportError): void {
    if (this.state === 'closed') return;
    const unexpected = this.state === 'open';
    this.state = 'closed';
    this.writer?.close(
      new TransportError(LocalErrorCode.ConnectionClosed, 'The server process connection is closed'),
    );
    if (unexpected) {
      this.report(
        report ??
          new TransportError(
            LocalErrorCode.ConnectionClosed,
            `The server process exited unexpectedly (${describeExit(this.status)})`,
            { details: this.status },
          ),
      );
    }
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.onclose?.();
    // Restarted from onclose: the stream goes on with the new process.
    if (this.state !== 'closed' || !this.stderrStream) return;
    for (const source of this.stderrSources) source.unpipe(this.stderrStream);
    this.stderrSources.clear();
    this.stderrStream.end();
  }

  private dispatch(items: DecodedItem[]): void {
    for (const item of items) {
      if (this.state !== 'open') return;
      if (item.kind === 'message') this.onmessage?.(item.value);
      else this.onerror?.(item.error);
    }
  }

  private report(error: Error): void {
    this.onerror?.(error);
  }
}

/**
 * The refusal of a message to a server process that does not read its stdin. Made for each message at the
 * rate the server asks (each ping's answer), so without a stack (see `withoutStack`): a ping so refused
 * took ≈20 µs end to end (read, answered, refused, reported), ≈12 µs without.
 */
function notReading(bytes: number, messages: number, maxBytes: number, maxMessages: number): TransportError {
  return withoutStack(
    () =>
      new TransportError(
        LocalErrorCode.SendFailed,
        `Not sent: the server process is not reading its stdin (${bytes} bytes in ${messages} messages wait; limits: ${maxBytes} bytes, ${maxMessages} messages)`,
        { details: { queuedBytes: bytes, queuedMessages: messages } },
      ),
  );
}

function spawnFailed(command: string, cause: unknown): TransportError {
  return new TransportError(
    LocalErrorCode.SpawnFailed,
    `Could not start server process "${command}": ${errorMessage(cause)}`,
    { cause },
  );
}

function describeExit(status: ExitStatus | undefined): string {
  if (!status) return 'unknown status';
  if (status.signal) return `signal ${status.signal}`;
  return `exit code ${String(status.code)}`;
}
