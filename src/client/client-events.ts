/**
 * What the server tells the client without being asked, and who wants to hear it: the listeners of
 * `onToolsChanged`, `onResourceUpdated`, `onResourceListChanged` and `onPromptListChanged`, the resource
 * URIs subscribed to, and the notification handlers that feed them (and drop stale cached lists). In the
 * stateless era the `subscriptions/listen` stream is kept asking for exactly what they want.
 * @module
 */
import { asError } from '../protocol/errors.js';
import { isJsonObject } from '../protocol/jsonrpc.js';
import type { Peer, RequestOptions } from '../protocol/engine/peer.js';
import type { LoggingMessageParams } from '../protocol/types/lifecycle.js';
import type { Tool } from '../protocol/types/tools.js';
import type { ListenStream } from './stateless/listen-stream.js';
import type { UrlElicitations } from './url-elicitations.js';
import type { ClientConnection } from './client-connection.js';
import type { Requester } from './exchange-options.js';

/** What the events need from their client. */
export interface EventsHost {
  /** The connection (its era, and whether it is up). */
  connection: ClientConnection;
  /** Sends one request through the client's links. */
  send: Requester;
  /** Fetches the tools again (the handshake-era list is dropped first by `toolsChanged`). */
  listTools(): Promise<readonly Tool[]>;
  /** The tools the server listed are stale; returns whether they had been listed (they are fetched again). */
  toolsChanged(): boolean;
  onLog?: ((params: LoggingMessageParams) => void) | undefined;
  /** The URL elicitations the server named, and who hears of their completion. */
  urlElicitations: UrlElicitations;
  onElicitationComplete?: ((elicitationId: string) => void) | undefined;
  report(error: Error): void;
}

export class ClientEvents {
  readonly tools = new Set<(tools: readonly Tool[]) => void>();
  readonly resourceUpdated = new Set<(uri: string) => void>();
  readonly resourceList = new Set<() => void>();
  readonly promptList = new Set<() => void>();
  readonly #uris = new Set<string>();
  /**
   * Tasks followed (stateless era): their `notifications/tasks` come on the listen stream. Each is mapped
   * to what to call once an acknowledgement names it (undefined once called).
   */
  readonly #taskIds = new Map<string, (() => void) | undefined>();
  readonly #peer: Peer;
  readonly #listen: ListenStream;
  readonly #host: EventsHost;

  constructor(peer: Peer, listen: ListenStream, host: EventsHost) {
    this.#peer = peer;
    this.#listen = listen;
    this.#host = host;
    this.#bind();
  }

  /** Adds `listener` to `listeners` (and listens for it); returns the unsubscribe. */
  listenTo<T>(listeners: Set<T>, listener: T): () => void {
    listeners.add(listener);
    void this.update();
    return () => {
      listeners.delete(listener);
      void this.update();
    };
  }

  /**
   * `resources/subscribe` in the handshake era; in the stateless era the URI joins the listen stream
   * (resolves once the server acknowledged it).
   */
  async subscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (this.#host.connection.requireConnected().era === 'handshake') {
      await this.#host.send('resources/subscribe', { uri }, options);
      return;
    }
    this.#uris.add(uri);
    await this.update();
  }

  async unsubscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (this.#host.connection.requireConnected().era === 'handshake') {
      await this.#host.send('resources/unsubscribe', { uri }, options);
      return;
    }
    this.#uris.delete(uri);
    await this.update();
  }

  /**
   * Stateless era: the task's status notifications join the listen stream until the returned call;
   * `listening` is called once the server acknowledged a stream that names the task (what changed before
   * then was notified to no stream).
   */
  listenToTask(taskId: string, listening?: () => void): () => void {
    this.#taskIds.set(taskId, listening);
    void this.update().catch(() => undefined);
    return () => {
      if (this.#taskIds.delete(taskId)) void this.update().catch(() => undefined);
    };
  }

  /** Stateless era: listens for what the listeners and subscriptions want (errors go to `onError`). */
  update(): Promise<void> {
    if (this.#host.connection.channel?.era !== 'stateless' || this.#peer.closed) return Promise.resolve();
    return this.#listen.update({
      toolsListChanged: this.tools.size > 0,
      promptsListChanged: this.promptList.size > 0,
      resourcesListChanged: this.resourceList.size > 0,
      resourceSubscriptions: [...this.#uris],
      taskIds: [...this.#taskIds.keys()],
    });
  }

  /** A fetch of the tools after a change is under way; `true` once another change came meanwhile. */
  #toolsFetch: { again: boolean } | undefined;

  /**
   * Fetches the tools again after a change, for the listeners and for the cached list (whose outputSchemas
   * check results, whose annotations the approval policy reads): one fetch at a time, and one
   * more after it for the changes that came meanwhile (a server sending 10,000 `list_changed` made as many
   * fetches of its whole list).
   */
  #refreshTools(report: (error: unknown) => void): void {
    if (this.#toolsFetch) {
      this.#toolsFetch.again = true;
      return;
    }
    const fetch = (this.#toolsFetch = { again: false });
    void this.#host
      .listTools()
      .then((tools) => this.tools.forEach((listener) => listener(tools)), report)
      .finally(() => {
        this.#toolsFetch = undefined;
        if (fetch.again && !this.#peer.closed) this.#refreshTools(report);
      });
  }

  #bind(): void {
    const peer = this.#peer;
    const host = this.#host;
    const report = (error: unknown) => host.report(asError(error));
    // The list is fetched again when someone listens, or when it had been listed: a client that listed the
    // tools keeps an up-to-date list, one that never did fetches nothing (a call's result check fetches it).
    peer.setNotificationHandler('notifications/tools/list_changed', () => {
      if (host.toolsChanged() || this.tools.size > 0 || this.#toolsFetch) this.#refreshTools(report);
    });
    peer.setNotificationHandler('notifications/resources/updated', (params) => {
      const uri = params.uri;
      if (typeof uri !== 'string') return;
      host.connection.channel?.forget('resources/read', (read) => read.uri === uri);
      this.resourceUpdated.forEach((listener) => listener(uri));
    });
    peer.setNotificationHandler('notifications/resources/list_changed', () => {
      host.connection.channel?.forget('resources/list');
      host.connection.channel?.forget('resources/templates/list');
      this.resourceList.forEach((listener) => listener());
    });
    peer.setNotificationHandler('notifications/prompts/list_changed', () => {
      host.connection.channel?.forget('prompts/list');
      this.promptList.forEach((listener) => listener());
    });
    peer.setNotificationHandler('notifications/subscriptions/acknowledged', (params) => {
      this.#listen.acknowledge(params);
      const taskIds = isJsonObject(params.notifications) ? params.notifications.taskIds : undefined;
      if (!Array.isArray(taskIds)) return;
      for (const taskId of taskIds) {
        if (typeof taskId !== 'string') continue;
        const listening = this.#taskIds.get(taskId);
        if (!listening) continue;
        this.#taskIds.set(taskId, undefined);
        listening();
      }
    });
    peer.setNotificationHandler('notifications/message', (params) => {
      host.onLog?.(params as unknown as LoggingMessageParams);
    });
    // Only for an id the server named and did not complete yet (the spec: ignore the others).
    peer.setNotificationHandler('notifications/elicitation/complete', (params) => {
      const id = params.elicitationId;
      if (host.urlElicitations.complete(id)) host.onElicitationComplete?.(id);
    });
  }
}
