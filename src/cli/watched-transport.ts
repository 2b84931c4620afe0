/**
 * What a server command does while the CLI connects to it, watched from the transport: whether anything
 * that looks like an MCP server answered, whether the command only echoes what it is sent (`cat`), what
 * plain text it printed on stdout, and how it ended if it exited on its own. `connectFailure` turns that
 * into a plain sentence ("`cat` is not an MCP server: it echoes back what it is sent").
 *
 * An echo is never passed on: `cat` sends our `server/discover` back to us, and the client would answer
 * it (-32601), get its own answer echoed back as the reply to its request, and report "Method not found".
 * Nor is what the command prints before anything answered that is not a JSON-RPC message (plain text, a
 * JSON value that is not JSON-RPC, a line over the size limit that names no message): the engine would
 * answer each with an error written to the command's stdin (`yes` never reads it), and that much of it
 * ({@link MAX_PLAIN_LINES}, {@link MAX_OVERSIZED_LINES}) gives the command up at once, `--timeout` or not.
 * @module
 */
import {
  ErrorCode,
  LocalErrorCode,
  ProtocolError,
  ToolwireError,
  isJsonObject,
  type JsonRpcMessage,
  type SendOptions,
  type Transport,
} from '../protocol/index.js';
import type { ExitStatus } from '../transports/stdio/index.js';

/** What was seen of the command before it answered as an MCP server (see {@link WatchedTransport}). */
export interface WatchReport {
  /** A JSON-RPC message that is not an echo arrived: the command speaks JSON-RPC. */
  readonly answered: boolean;
  /** The command sent back a message we had sent it. */
  readonly echoed: boolean;
  /** Lines on stdout that are not JSON, before anything answered. */
  readonly plainLines: number;
  /** The start of the first such line, when the parser's message shows it. */
  readonly plainSample: string | undefined;
  /** Lines on stdout over the size limit that name no MCP message, before anything answered. */
  readonly oversizedLines: number;
  /** How the process ended, when it exited before we closed the connection. */
  readonly exit: ExitStatus | undefined;
  /** Bytes the command printed on stdout, whole lines or not. */
  readonly stdoutBytes: number;
}

/** What the watch is given of the process under the transport. */
export interface WatchedProcess {
  /** How it ended (the stdio transport's `exitStatus`). */
  exitStatus(): ExitStatus | undefined;
  /** Bytes read from its stdout (the stdio transport's `stdoutBytes`). */
  stdoutBytes(): number;
  /** Sends it SIGTERM, if it still runs: a command given up on is not waited for first. */
  terminate(): void;
}

/**
 * Lines on stdout that are not JSON-RPC, before anything answered, after which the command is taken for no
 * MCP server (an MCP server writes nothing else there; a few lines of a banner are forgiven).
 */
export const MAX_PLAIN_LINES = 1000;

/** Lines over the size limit (4 MiB) that name no message, before anything answered: the same verdict. */
const MAX_OVERSIZED_LINES = 4;

/** The characters of a JSON value that is not JSON-RPC shown as its sample (as V8 quotes a line). */
const SAMPLE_CHARS = 10;

/** Outgoing messages remembered to recognize an echo; only the connect's few are ever kept. */
const MAX_REMEMBERED = 16;

/**
 * How long closing a connection that never got an answer waits for the command to end on its own first:
 * a command that exits at once (`ls`) fails the first write before its exit and its output are read, and
 * once closing, the transport reads no more. It has usually ended already; a live one is closed after this.
 */
const SETTLE_MS = 250;

/** A transport around the stdio transport to a server command; everything passes through unchanged. */
export class WatchedTransport implements Transport, WatchReport {
  onmessage?: Transport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Present when the inner transport can start its server again (the client's probe uses it). */
  readonly restart?: () => Promise<void>;
  /** Resolves when the command echoed a message back: it is no MCP server. */
  readonly echo: Promise<void>;
  /**
   * Resolves when the command printed too much that is not JSON-RPC before answering ({@link MAX_PLAIN_LINES}):
   * it is no MCP server.
   */
  readonly flooded: Promise<void>;

  answered = false;
  echoed = false;
  plainLines = 0;
  plainSample: string | undefined;
  oversizedLines = 0;
  exit: ExitStatus | undefined;
  /** Set before closing on purpose (timed out, echoed): closing then waits for nothing. */
  givingUp = false;

  readonly #inner: Transport;
  readonly #process: WatchedProcess;
  readonly #ended: Promise<void>;
  #onEnded: () => void = () => undefined;
  readonly #sentText = new Set<string>();
  readonly #sentRequests = new Map<string | number, string>();
  #closing = false;
  #onEcho: () => void = () => undefined;
  #onFlooded: () => void = () => undefined;
  readonly #onPlainText: ((sample: string | undefined) => void) | undefined;

  /**
   * `process` tells of the process under `inner`; `onPlainText` hears of the first line on stdout that is
   * not JSON (while nothing has answered).
   */
  constructor(inner: Transport, process: WatchedProcess, onPlainText?: (sample: string | undefined) => void) {
    this.#inner = inner;
    this.#process = process;
    this.#onPlainText = onPlainText;
    this.echo = new Promise<void>((resolve) => (this.#onEcho = resolve));
    this.flooded = new Promise<void>((resolve) => (this.#onFlooded = resolve));
    this.#ended = new Promise<void>((resolve) => (this.#onEnded = resolve));
    const restartable = inner as Transport & { restart?: unknown };
    if (typeof restartable.restart === 'function') {
      const restart = restartable.restart as () => Promise<void>;
      this.restart = () => restart.call(inner);
    }
    inner.onmessage = (message, extra) => {
      if (!this.answered) {
        if (this.#isEcho(message)) {
          this.echoed = true;
          this.#onEcho();
          return;
        }
        if (!looksLikeJsonRpc(message)) {
          this.#plainLine(() => sampleOfValue(message));
          return;
        }
        this.answered = true;
      }
      this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => {
      if (!this.answered && error instanceof ProtocolError && error.code === ErrorCode.ParseError) {
        this.#plainLine(() => sampleOf(error));
        return;
      }
      if (!this.answered && isNamelessTooLarge(error)) {
        if (this.oversizedLines < MAX_OVERSIZED_LINES) this.oversizedLines += 1;
        if (this.oversizedLines === MAX_OVERSIZED_LINES) this.#onFlooded();
        return;
      }
      this.onerror?.(error);
    };
    inner.onclose = () => {
      if (!this.#closing) this.exit ??= process.exitStatus() ?? { code: null, signal: null };
      this.#onEnded();
      this.onclose?.();
    };
  }

  get stdoutBytes(): number {
    return this.#process.stdoutBytes();
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!this.answered && this.#sentText.size < MAX_REMEMBERED) this.#remember(message);
    return this.#inner.send(message, options);
  }

  /**
   * Closes; when nothing answered, the command may first end on its own for a moment (see SETTLE_MS).
   * Given up on (`givingUp`), it gets SIGTERM along with the end of its stdin, not a second later: the
   * failure is reported within `--timeout`.
   */
  async close(): Promise<void> {
    if (!this.answered && !this.echoed && !this.givingUp && !this.#closing && this.exit === undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settled = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS)));
      await Promise.race([this.#ended, settled]).finally(() => clearTimeout(timer));
    }
    this.#closing = true;
    const closed = this.#inner.close();
    if (this.givingUp) this.#process.terminate();
    return closed;
  }

  /** A line that is not JSON-RPC before anything answered: counted, its sample kept, never passed on. */
  #plainLine(sample: () => string | undefined): void {
    if (this.plainLines === MAX_PLAIN_LINES) return;
    this.plainLines += 1;
    if (this.plainLines === 1) {
      this.plainSample = sample();
      this.#onPlainText?.(this.plainSample);
    } else if (this.plainLines === MAX_PLAIN_LINES) this.#onFlooded();
  }

  #remember(message: JsonRpcMessage | JsonRpcMessage[]): void {
    this.#sentText.add(JSON.stringify(message));
    for (const item of Array.isArray(message) ? message : [message]) {
      if ('method' in item && 'id' in item) this.#sentRequests.set(item.id, item.method);
    }
  }

  /** The very message we sent, or a request with the id and method of one of ours (a server never sends those). */
  #isEcho(message: unknown): boolean {
    if (this.#sentText.has(JSON.stringify(message))) return true;
    if (!isJsonObject(message) || typeof message.method !== 'string') return false;
    const id = message.id;
    return (
      (typeof id === 'string' || typeof id === 'number') && this.#sentRequests.get(id) === message.method
    );
  }
}

function looksLikeJsonRpc(message: unknown): boolean {
  const first: unknown = Array.isArray(message) ? message[0] : message;
  return isJsonObject(first) && first.jsonrpc === '2.0';
}

/** A `MESSAGE_TOO_LARGE` whose start and end name no request or answer (its details carry no `id`). */
function isNamelessTooLarge(error: Error): boolean {
  if (!(error instanceof ToolwireError) || error.code !== LocalErrorCode.MessageTooLarge) return false;
  const details: unknown = error.details;
  return !isJsonObject(details) || details.id === undefined;
}

/** The start of a JSON value that is not JSON-RPC, as {@link sampleOf} shows a line. */
function sampleOfValue(value: unknown): string | undefined {
  const text = JSON.stringify(value) ?? '';
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
}

/** The line as JSON.parse quoted it in its message (`Unexpected token 'h', "hello" is not valid JSON`). */
function sampleOf(error: ProtocolError): string | undefined {
  const quoted = /"([\s\S]*)"(\.\.\.)? is not valid JSON/.exec(error.message);
  if (!quoted?.[1]) return undefined;
  const line = quoted[1].split('\n')[0] ?? '';
  return quoted[2] || line.length < quoted[1].length ? `${line}…` : line;
}
