/**
 * The server end of the stdio transport: JSON-RPC messages as lines on stdin and stdout.
 * @module
 */
import { LocalErrorCode, asError, errorMessage } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Transport } from '../../protocol/transport.js';
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
   * Called once, after `onclose`, when the transport closed because stdin ended or closed
   * (not after an explicit `close()`). The client closing the server's stdin is how an MCP stdio
   * session ends; `toolwire serve` uses it to finish serving and exit 0. The transport itself never
   * calls `process.exit`.
   */
  onStdinClosed?: () => void;
}

/**
 * Reads newline-delimited JSON from stdin and writes it to stdout.
 * A line that is not JSON is reported through `onerror` as a `ProtocolError` with code -32700
 * (the engine answers it); a line over `maxMessageSize` as a `TransportError` `MESSAGE_TOO_LARGE`.
 * `close()` stops reading (removes its listeners and pauses stdin) but leaves stdout open.
 */
export class StdioServerTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly sessionId: string | undefined = undefined;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly decoder: LineDecoder;
  private readonly writer: LineWriter;
  private readonly onStdinClosed: (() => void) | undefined;
  private state: 'idle' | 'open' | 'closed' = 'idle';

  constructor(options: StdioServerTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.decoder = new LineDecoder(
      options.maxMessageSize === undefined ? {} : { maxMessageSize: options.maxMessageSize },
    );
    this.writer = new LineWriter(this.stdout, (error) => this.onerror?.(error));
    this.onStdinClosed = options.onStdinClosed;
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

  private shutdown(): boolean {
    if (this.state === 'closed') return false;
    const wasStarted = this.state === 'open';
    this.state = 'closed';
    if (wasStarted) {
      this.stdin.removeListener('data', this.handleData);
      this.stdin.removeListener('end', this.handleEnd);
      this.stdin.removeListener('close', this.handleEnd);
      this.stdin.removeListener('error', this.handleStdinError);
      this.stdin.pause();
      // Keep a no-op listener: a late EPIPE on stdout must not crash the process.
      this.stdout.removeListener('error', this.handleStdoutError);
      this.stdout.on('error', ignore);
    }
    this.decoder.reset();
    this.writer.close(new TransportError(LocalErrorCode.ConnectionClosed, 'The stdio transport is closed'));
    this.onclose?.();
    return true;
  }

  private readonly handleData = (chunk: Buffer | string): void => {
    this.dispatch(this.decoder.push(chunk));
  };

  private readonly handleEnd = (): void => {
    if (this.state !== 'open') return;
    this.dispatch(this.decoder.end());
    if (this.shutdown()) this.onStdinClosed?.();
  };

  private readonly handleStdinError = (error: Error): void => {
    this.onerror?.(
      new TransportError(LocalErrorCode.ConnectionClosed, `stdin failed: ${errorMessage(error)}`, {
        cause: error,
      }),
    );
    if (this.shutdown()) this.onStdinClosed?.();
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

function ignore(): void {}
