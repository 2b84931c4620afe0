/**
 * The handshake era's channel (2024-11-05 … 2025-11-25, after `initialize`): requests go straight
 * through the engine, their own handlers tracked while they are in flight (see `OwnHandlers`); `ping`,
 * `logging/setLevel` and `notifications/roots/list_changed` exist; there is no result cache and no
 * `subscriptions/listen`.
 * @module
 */
import type { Peer, RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import type { ServerView } from './choose-era.js';
import { ClientError } from './client-error.js';
import type { OwnHandlers } from './own-handlers.js';
import type { EraChannel } from './era-channel.js';
import type { Requester } from './exchange-options.js';
import type { OutgoingRequest } from './links/client-link.js';

export class HandshakeChannel implements EraChannel {
  readonly era = 'handshake';
  readonly emptyCursorEnds = true;
  readonly #peer: Peer;
  readonly #server: ServerView;
  readonly #own: OwnHandlers;

  constructor(peer: Peer, server: ServerView, own: OwnHandlers) {
    this.#peer = peer;
    this.#server = server;
    this.#own = own;
  }

  get protocolVersion(): string {
    return this.#server.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.#server.serverInfo;
  }

  readonly send = (request: OutgoingRequest): Promise<JsonObject> => {
    // Options of its own for a call with handlers: the engine's request is then known by them (OwnHandlers).
    const options = request.options.handlers ? { ...request.options } : request.options;
    const pending = this.#peer.request(request.method, request.params, options);
    // A task's questions name the task: the call waiting for its result is theirs (2025-11-25).
    const taskId = request.method === 'tasks/result' ? request.params?.taskId : undefined;
    return this.#own.track(options, pending, typeof taskId === 'string' ? taskId : undefined);
  };

  async ping(request: Requester, options?: RequestOptions): Promise<void> {
    await request('ping', undefined, options);
  }

  async setLoggingLevel(level: LoggingLevel, request: Requester): Promise<void> {
    await request('logging/setLevel', { level });
  }

  rootsListChanged(): Promise<void> {
    return this.#peer.notify('notifications/roots/list_changed');
  }

  forget(): void {}

  listen(): Promise<JsonObject> {
    return Promise.reject(
      new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `subscriptions/listen does not exist in protocol version ${this.protocolVersion}`,
      ),
    );
  }
}
