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
import type { SendOptions, Transport } from '../protocol/transport.js';
import { TransportWrapper } from '../protocol/transport-wrapper.js';

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

export class ProbeWindow extends TransportWrapper<RestartableTransport> {
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
    super(inner);
    this.restarting = new Promise<void>((resolve) => (this.#onRestart = resolve));
    inner.onerror = (error) => this.#error(error);
    inner.onclose = () => this.#close();
  }

  override set onerror(listener: ((error: Error) => void) | undefined) {
    this.#onerror = listener;
  }

  override get onerror(): ((error: Error) => void) | undefined {
    return this.#onerror;
  }

  override set onclose(listener: (() => void) | undefined) {
    this.#onclose = listener;
  }

  override get onclose(): (() => void) | undefined {
    return this.#onclose;
  }

  /** Refused while the server restarts: what the first process was sent must not reach the second. */
  override send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#state === 'restarting') {
      return Promise.reject(
        new ToolwireError(LocalErrorCode.ConnectionClosed, 'The server process exited and is restarting'),
      );
    }
    return this.inner.send(message, options);
  }

  override close(): Promise<void> {
    this.#state = 'open';
    return this.inner.close();
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
      this.#restart = this.inner.restart();
      this.#restart.catch(() => undefined); // the client sees it through restarted()
      this.#onRestart();
      return;
    }
    if (report) this.#onerror?.(report);
    this.#onclose?.();
  }
}
