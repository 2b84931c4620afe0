/**
 * The server end of the stdio transport: JSON-RPC messages as lines on stdin and stdout.
 * @module
 */
import { LocalErrorCode, asError, errorMessage } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { OutputBacklog, Transport } from '../../protocol/transport.js';
import { QueuedOutput } from '../queued-output.js';
import { TransportError } from '../transport-error.js';
import { LineDecoder, serializeMessage, type DecodedItem } from './line-decoder.js';
import { LineWriter } from './line-writer.js';

export interface StdioServerTransportOptions {
  /** Where messages come from. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** Where messages go: one JSON message per line and nothing else. Default `process.stdout`. */
  stdout?: NodeJS.WritableStream;
  /** The largest incoming line, in bytes. Default 4 MiB. */
  maxMessageSize?: number;
  /**
   * Output waiting for the client to read stdout, in bytes (characters of JSON text), at which the
   * transport stops reading stdin until half of it is read. Default 8 MiB.
   */
  maxQueuedBytes?: number;
  /** Messages waiting for the client to read stdout at which the transport stops reading stdin. Default 4096. */
  maxQueuedMessages?: number;
  /**
   * Called once, after `onclose`, when the transport closed after stdin ended or closed. The client
   * closing the server's stdin is how an MCP stdio session ends: the engine answers the requests it has
   * read (within the server's `shutdownGraceMs`), then closes the transport. `toolwire serve` uses it
   * to finish serving and exit 0. The transport itself never calls `process.exit`.
   */
  onStdinClosed?: () => void;
}

/**
 * Reads newline-delimited JSON from stdin and writes it to stdout.
 * A line that is not JSON is reported through `onerror` as a `ProtocolError` with code -32700
 * (the engine answers it); a line over `maxMessageSize` as a `TransportError` `MESSAGE_TOO_LARGE`.
 * Backpressure: while the client leaves `maxQueuedBytes` or `maxQueuedMessages` of output unread, stdin
 * is not read (the client's writes wait in the pipe); reading resumes once half of it is read.
 * When stdin ends, the engine is told (`onend`) and answers what it has read before closing the transport.
 * `close()` stops reading (removes its listeners and pauses stdin) but leaves stdout open, and what was
 * sent before it still goes out (`flushed()` says when).
 */
export class StdioServerTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  onend?: () => void;
  ondrain?: () => void;
  readonly sessionId: string | undefined = undefined;
  /** What waits for the client to read stdout; the engine starts no request while it is full. */
  readonly backlog: OutputBacklog;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly decoder: LineDecoder;
  private readonly writer: LineWriter;
  private readonly onStdinClosed: (() => void) | undefined;
  private state: 'idle' | 'open' | 'closed' = 'idle';
  /** The client is behind reading stdout: stdin is paused. */
  private backedUp = false;
  /** The engine holds requests it read and has not started: stdin is paused. */
  private engineHolds = false;
  /**
   * Decoded lines not delivered yet (from `heldIndex` on): the rest of a chunk of many lines, delivered a
   * slice at a time, or lines that were read when the client fell behind. stdin is paused meanwhile.
   */
  private held: DecodedItem[] | undefined;
  private heldIndex = 0;
  private pumping = false;
  private stdinEnded = false;

  constructor(options: StdioServerTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.decoder = new LineDecoder(
      options.maxMessageSize === undefined ? {} : { maxMessageSize: options.maxMessageSize },
    );
    const limits = new QueuedOutput(options); // the limits, checked (the writer does the counting)
    this.writer = new LineWriter(this.stdout, (error) => this.onerror?.(error), {
      maxBytes: limits.maxBytes,
      maxMessages: limits.maxMessages,
      onPressure: (full) => this.backPressure(full),
    });
    const writer = this.writer;
    this.backlog = {
      get bytes() {
        return writer.queuedBytes;
      },
      maxBytes: limits.maxBytes,
      get full() {
        return writer.isFull;
      },
    };
    this.onStdinClosed = options.onStdinClosed;
  }

  /** stdin ended or failed: the client sends nothing more. */
  get inputEnded(): boolean {
    return this.stdinEnded;
  }

  /**
   * Resolves once every message sent so far has been handed to the operating system (or dropped because
   * stdout failed). A process that exits after closing the transport waits for it: a pipe's writes are
   * asynchronous, and `process.exit` drops what is still buffered.
   */
  flushed(): Promise<void> {
    return this.writer.flushed();
  }

  /** Messages sent and not yet read by the client (nor handed to the operating system). */
  get queuedMessages(): number {
    return this.writer.queuedMessages;
  }

  /** Characters of the messages sent and not yet read by the client (nor handed to the OS). */
  get queuedBytes(): number {
    return this.writer.queuedBytes;
  }

  async start(): Promise<void> {
    if (this.state !== 'idle') {
      throw new TransportError(
        this.state === 'open' ? LocalErrorCode.AlreadyConnected : LocalErrorCode.ConnectionClosed,
        this.state === 'open' ? 'The stdio transport is already started' : 'The stdio transport is closed',
      );
    }
    this.state = 'open';
    this.stdin.on('data', this.handleData);
    this.stdin.on('end', this.handleEnd);
    this.stdin.on('close', this.handleEnd);
    this.stdin.on('error', this.handleStdinError);
    this.stdout.on('error', this.handleStdoutError);
    this.stdin.resume();
  }

  private backPressure(full: boolean): void {
    this.backedUp = full;
    if (!full) this.ondrain?.();
    this.resumeOrPause();
  }

  /** Called by the engine while it holds requests it has not started: stdin is not read meanwhile. */
  holdInput(hold: boolean): void {
    this.engineHolds = hold;
    this.resumeOrPause();
  }

  /** Whether delivering more lines must wait: the client is behind, or the engine holds what it has. */
  private get stalled(): boolean {
    return this.backedUp || this.engineHolds;
  }

  private resumeOrPause(): void {
    if (this.state !== 'open' || this.stdinEnded) return;
    if (this.stalled) this.stdin.pause();
    else if (this.held) this.schedulePump();
    else this.stdin.resume();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    // Not async: the promise is the writer's own (shared by the lines of one tick).
    if (this.state === 'idle') {
      return Promise.reject(
        new TransportError(LocalErrorCode.NotConnected, 'The stdio transport is not started'),
      );
    }
    if (this.state === 'closed') {
      return Promise.reject(
        new TransportError(LocalErrorCode.ConnectionClosed, 'The stdio transport is closed'),
      );
    }
    try {
      return this.writer.write(serializeMessage(message));
    } catch (error) {
      return Promise.reject(asError(error)); // e.g. a BigInt in it
    }
  }

  async close(): Promise<void> {
    this.shutdown();
  }

  private shutdown(): void {
    if (this.state === 'closed') return;
    const wasStarted = this.state === 'open';
    this.state = 'closed';
    if (wasStarted) {
      this.stopReading();
      // Keep a no-op listener: a late EPIPE on stdout must not crash the process.
      this.stdout.removeListener('error', this.handleStdoutError);
      this.stdout.on('error', ignore);
    }
    this.decoder.reset();
    this.held = undefined;
    // What was sent still goes out; nothing more is taken.
    this.writer.end(new TransportError(LocalErrorCode.ConnectionClosed, 'The stdio transport is closed'));
    this.onclose?.();
    if (this.stdinEnded) this.onStdinClosed?.();
  }

  private stopReading(): void {
    this.stdin.removeListener('data', this.handleData);
    this.stdin.removeListener('end', this.handleEnd);
    this.stdin.removeListener('close', this.handleEnd);
    this.stdin.removeListener('error', this.handleStdinError);
    this.stdin.pause();
  }

  /** stdin ended: the engine finishes what it read (and closes the transport), else it closes now. */
  private endOfInput(): void {
    this.stdinEnded = true;
    const onend = this.onend;
    if (!onend) {
      this.shutdown();
      return;
    }
    this.stopReading();
    onend();
  }

  private readonly handleData = (chunk: Buffer | string): void => {
    const items = this.decoder.push(chunk);
    // The common case: a few lines, and a client that keeps up, delivered at once.
    if (items.length <= SLICE && !this.held && !this.stalled) this.dispatch(items);
    else this.hold(items);
  };

  private readonly handleEnd = (): void => {
    if (this.state !== 'open' || this.stdinEnded) return;
    // The client sends nothing more: what is held (at most a chunk) is delivered now, whatever the queue.
    const held = this.held;
    this.held = undefined;
    if (held) this.dispatch(held.slice(this.heldIndex));
    this.heldIndex = 0;
    this.dispatch(this.decoder.end());
    this.endOfInput();
  };

  /**
   * Keeps lines to deliver a slice at a time: the answers to a slice's requests are written (and counted
   * against the queue limits) before the next slice is delivered, so a client that sends many requests in
   * one chunk and reads nothing finds reading stopped within a slice of the limit, not a chunk.
   */
  private hold(items: DecodedItem[]): void {
    if (this.held) for (const item of items) this.held.push(item);
    else this.held = items;
    this.stdin.pause();
    if (!this.stalled) this.schedulePump();
  }

  private schedulePump(): void {
    if (this.pumping) return;
    this.pumping = true;
    // After the microtasks (the answers of what was delivered) and the writer's flush on the next tick.
    setImmediate(this.pump);
  }

  private readonly pump = (): void => {
    this.pumping = false;
    const held = this.held;
    if (!held || this.state !== 'open' || this.stalled) return;
    const end = Math.min(held.length, this.heldIndex + SLICE);
    this.dispatch(held.slice(this.heldIndex, end));
    this.heldIndex = end;
    if (end < held.length) {
      if (!this.stalled) this.schedulePump();
      return;
    }
    this.held = undefined;
    this.heldIndex = 0;
    if (!this.stalled && this.state === 'open') this.stdin.resume();
  };

  private readonly handleStdinError = (error: Error): void => {
    this.onerror?.(
      new TransportError(LocalErrorCode.ConnectionClosed, `stdin failed: ${errorMessage(error)}`, {
        cause: error,
      }),
    );
    if (this.state !== 'open' || this.stdinEnded) return;
    this.endOfInput();
  };

  private readonly handleStdoutError = (error: Error): void => {
    this.onerror?.(
      new TransportError(LocalErrorCode.SendFailed, `stdout failed: ${errorMessage(error)}`, {
        cause: error,
      }),
    );
  };

  private dispatch(items: DecodedItem[]): void {
    for (const item of items) {
      if (this.state !== 'open') return;
      switch (item.kind) {
        case 'message':
          this.onmessage?.(item.value);
          break;
        case 'parse-error':
        case 'too-large':
          this.onerror?.(item.error);
          break;
      }
    }
  }
}

/** Lines delivered at once before the answers to them are written and counted. */
const SLICE = 64;

function ignore(): void {}
