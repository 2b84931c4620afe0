/**
 * The roots of a gateway that serves one host (`Gateway.connectHost`: stdio, as `toolwire gateway --stdio`
 * and every desktop host or IDE runs it): that host's roots are the gateway's own. An upstream's `roots/list`
 * that no call carries (one asked when it is initialized, or after `notifications/roots/list_changed`) gets
 * them, asked of the host once it has initialized and declared `roots` (none before); and the host's
 * `notifications/roots/list_changed` — and its initialization, which makes its roots the gateway's — reach
 * every ready upstream, coalesced. A gateway whose server has any other connection (an HTTP endpoint's
 * sessions) has none: no host may supply another's roots, nor learn them through an upstream.
 * @module
 */
import { ErrorCode, ProtocolError, declaresCapability, errorMessage, type Root } from '../index.js';
import type { Server, ServerConnection } from '../server/index.js';

export interface HostRootsOptions {
  /** The gateway's downstream server: the host must be its only connection. */
  server: Server;
  /** Tells every ready upstream that the roots changed (`notifications/roots/list_changed`). */
  announce: () => void;
  /** Something worth a warning (the host's roots could not be read). */
  warn: (message: string) => void;
}

export class HostRoots {
  readonly #options: HostRootsOptions;
  #host: ServerConnection | undefined;
  #initialized = false;
  /** The host's answer being awaited: the upstreams that ask meanwhile share it. */
  #asking: Promise<Root[]> | undefined;
  #announcing = false;

  constructor(options: HostRootsOptions) {
    this.#options = options;
  }

  /** The host, while it is connected. */
  get host(): ServerConnection | undefined {
    const host = this.#host;
    if (host && !this.#options.server.connections.has(host)) this.#forget();
    return this.#host;
  }

  /** Takes `connection` as the gateway's one host: once it initializes, the upstreams hear that the roots changed. */
  serve(connection: ServerConnection): void {
    this.#host = connection;
    this.#initialized = false;
    connection.oninitialized = () => {
      if (this.#host !== connection || this.#initialized) return;
      this.#initialized = true;
      if (declaresCapability(connection.client.capabilities, 'roots')) this.changed(connection);
    };
  }

  /** The host closed. */
  #forget(): void {
    if (this.#host) this.#host.oninitialized = undefined;
    this.#host = undefined;
    this.#initialized = false;
    this.#asking = undefined;
  }

  /**
   * The gateway's roots: the host's, asked of it (one question at a time, shared by the upstreams that ask
   * meanwhile), while it is the server's only connection and has initialized and declared `roots`; else none.
   * A host that fails to answer (an error, no answer within the server's request timeout) fails the
   * upstream's question with -32603 saying so (and a warning), rather than telling it there are none.
   */
  roots(): Promise<Root[]> | Root[] {
    const host = this.host;
    if (!host || !this.#initialized || !declaresCapability(host.client.capabilities, 'roots')) return [];
    if (this.#options.server.connections.size !== 1) return [];
    if (this.#asking) return this.#asking;
    const asking = host.listRoots().then(
      (result) => result.roots,
      (error: unknown) => {
        const why = errorMessage(error);
        this.#options.warn(`the host's roots could not be read: ${why}`);
        throw new ProtocolError(
          ErrorCode.InternalError,
          `Internal error: the gateway could not read its host's roots: ${why}`,
        );
      },
    );
    this.#asking = asking;
    const done = () => {
      if (this.#asking === asking) this.#asking = undefined;
    };
    asking.then(done, done);
    return asking;
  }

  /** A connection said its roots changed (`notifications/roots/list_changed`): the host's reach the upstreams. */
  changed(connection: object): void {
    if (connection !== this.#host || !this.#initialized) return;
    // An answer asked before the change is not the roots now.
    this.#asking = undefined;
    this.#announce();
  }

  /** Tells the upstreams once for every change of this turn of the event loop. */
  #announce(): void {
    if (this.#announcing) return;
    this.#announcing = true;
    setImmediate(() => {
      this.#announcing = false;
      this.#options.announce();
    });
  }
}
