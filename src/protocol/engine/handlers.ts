/**
 * The handlers a peer dispatches through: one table of request and notification handlers by method. A
 * client fills its own (`Peer.setRequestHandler`); a server fills one table once and every session's peer
 * shares it, each handler told which connection a message came on (`ctx.connection`), so a session holds
 * no copy of any handler.
 * @module
 */
import type { NotificationHandler, RequestHandler } from './request-context.js';

export class Handlers<C = unknown> {
  readonly #requests = new Map<string, RequestHandler<C>>();
  readonly #notifications = new Map<string, NotificationHandler<C>>();

  /** Sets the handler of requests of `method` (replacing any before it). */
  request(method: string, handler: RequestHandler<C>): void {
    this.#requests.set(method, handler);
  }

  /** Sets the handler of notifications of `method` (replacing any before it). */
  notification(method: string, handler: NotificationHandler<C>): void {
    this.#notifications.set(method, handler);
  }

  requestHandler(method: string): RequestHandler<C> | undefined {
    return this.#requests.get(method);
  }

  notificationHandler(method: string): NotificationHandler<C> | undefined {
    return this.#notifications.get(method);
  }
}
