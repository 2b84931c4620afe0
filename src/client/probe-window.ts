/**
 * The probe's second chance on stdio. In `auto` mode the client's first request is the stateless era's
 * `server/discover`, sent before any `initialize`. The handshake era lets a server refuse a request that
 * comes before `initialize`, and some servers do so by exiting. While the client probes a server it
 * started itself (a transport that can `restart()` it: the stdio client transport), the window keeps
 * that exit from the engine: the process is started again at once, with the same command, arguments,
 * environment and working directory, and the client shakes hands with the new one. This happens once
 * per connection; any later exit closes the connection as usual.
 * @module
 */
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { OutputBacklog, SendOptions, Transport } from '../protocol/transport.js';

/** A transport that can start its server again after the server exited on its own. */
export interface RestartableTransport extends Transport {
  /** Starts the server again, from `onclose` (see `StdioClientTransport.restart`). */
  restart(): Promise<void>;
}

export function isRestartable(transport: Transport): transport is RestartableTransport {
  return typeof (transport as Partial<RestartableTransport>).restart === 'function';
}

/** The transport's report of the exit that precedes its `onclose`. */
const isExitReport = (error: Error) =>
  error instanceof ToolwireError && error.code === LocalErrorCode.ConnectionClosed;

export class ProbeWindow implements Transport {
  readonly #inner: RestartableTransport;
  /** `probing`: an exit restarts the server; `restarting`: nothing may be sent; `open`: plain pass-through. */
  #state: 'probing' | 'restarting' | 'open' = 'probing';
  #onerror: ((error: Error) => void) | undefined;
  #onclose: (() => void) | undefined;
  /** The exit report that came just before a close, held until the close shows whether it restarts. */
  #exitReport: Error | undefined;
  #restart: Promise<void> | undefined;
  #onRestart: () => void = () => undefined;
  /** Resolves when the server exited during the probe and is being started again. */
  readonly restarting: Promise<void>;

  constructor(inner: RestartableTransport) {
    this.#inner = inner;
    this.restarting = new Promise<void>((resolve) => (this.#onRestart = resolve));
    inner.onerror = (error) => this.#error(error);
    inner.onclose = () => this.#close();
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  set onmessage(listener: Transport['onmessage']) {
    this.#inner.onmessage = listener;
  }

  get onmessage(): Transport['onmessage'] {
    return this.#inner.onmessage;
  }

  set onerror(listener: ((error: Error) => void) | undefined) {
    this.#onerror = listener;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.#onerror;
  }

  set onclose(listener: (() => void) | undefined) {
    this.#onclose = listener;
  }

  get onclose(): (() => void) | undefined {
    return this.#onclose;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  /** Refused while the server restarts: what the first process was sent must not reach the second. */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#state === 'restarting') {
      return Promise.reject(
        new ToolwireError(LocalErrorCode.ConnectionClosed, 'The server process exited and is restarting'),
      );
    }
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    this.#state = 'open';
    return this.#inner.close();
  }

  closeStream(relatedRequestId: Parameters<NonNullable<Transport['closeStream']>>[0]): void {
    this.#inner.closeStream?.(relatedRequestId);
  }

  /** The inner transport's backlog, where it has one (the engine paces the server's requests by it). */
  get backlog(): OutputBacklog | undefined {
    return this.#inner.backlog;
  }

  set ondrain(listener: (() => void) | undefined) {
    this.#inner.ondrain = listener;
  }

  get ondrain(): (() => void) | undefined {
    return this.#inner.ondrain;
  }

  holdInput(hold: boolean): void {
    this.#inner.holdInput?.(hold);
  }

  /**
   * Once `restarting` resolved: waits for the new process (rejecting when it cannot be started) and
   * lets messages through again. No further restart follows.
   */
  async restarted(): Promise<void> {
    try {
      await this.#restart;
    } finally {
      this.#state = 'open';
    }
  }

  /** The probe is over: from now on an exit closes the connection. */
  end(): void {
    if (this.#state === 'probing') this.#state = 'open';
  }

  #error(error: Error): void {
    if (this.#state === 'probing' && isExitReport(error)) {
      this.#exitReport = error;
      return;
    }
    this.#onerror?.(error);
  }

  #close(): void {
    const report = this.#exitReport;
    this.#exitReport = undefined;
    if (this.#state === 'probing') {
      this.#state = 'restarting';
      // From onclose itself, so that a piped stderr goes on with the new process.
      this.#restart = this.#inner.restart();
      this.#restart.catch(() => undefined); // the client sees it through restarted()
      this.#onRestart();
      return;
    }
    if (report) this.#onerror?.(report);
    this.#onclose?.();
  }
}
