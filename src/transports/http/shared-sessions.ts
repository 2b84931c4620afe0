/**
 * Sessions shared by several processes (the handler's `redis` option): each process serves any session
 * from its record in the shared store, and the session bus carries what crosses processes.
 * - The server's requests to the client get ids that name this process (`<instance>:n<id>`): the
 *   client's answer, posted to any process, is sent to the one waiting for it (`reply`), which hands it
 *   to its session with the id it sent.
 * - A message with no stream here (a notification unrelated to a request, when the session's `GET`
 *   stream is in another process) goes to the session's channel, which the process holding the stream
 *   listens to (`send`). One process holds it: one that opens or resumes it tells the others (`moved`).
 * - The record follows the session: written before the `initialize` answer leaves, and again before the
 *   answer of a request that changed the log level or the subscriptions — only what changed: the level,
 *   the URIs subscribed and unsubscribed, so that N subscriptions cost O(N) bytes, not O(N²). The
 *   others' copies take the same change from the bus, `changed`, as soon as it reaches them (a request
 *   that overtakes it there is served with the state before). A `DELETE` ends the session's copies
 *   everywhere (`ended`).
 * @module
 */
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import type { LoggingLevel } from '../../protocol/types/lifecycle.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { ServerSession } from '../../server/server-session.js';
import type { BusAddress, SessionBus } from '../../stores/session-bus.js';
import type { SessionState, SessionStore } from '../../stores/session-store.js';
import type { SessionRoute } from './http-session-transport-options.js';
import type { HttpSessionTransport } from './http-session-transport.js';
import { LIST_CHANGED, RESOURCE_UPDATED, SharedChanges } from './shared-changes.js';

/** What the shared sessions need of the handler's live sessions. */
export interface SharedSessionsHost {
  /** The session and transport serving `sessionId` in this process, if any. */
  live(sessionId: string): LiveCopy | undefined;
  /** Every session this process serves. */
  sessions(): Iterable<LiveCopy>;
  /** Closes this process's copy of a session (its record stays). */
  drop(sessionId: string): Promise<void>;
  /** Errors no request can be told of (a bus message that could not be sent). */
  onError(error: Error): void;
}

interface LiveCopy {
  session: ServerSession;
  transport: HttpSessionTransport;
}

/**
 * The route of one session's transport: an object with methods (one per session, no functions of its
 * own), which also keeps what the record holds and whether the session's channel is listened to here.
 */
export class SharedRoute implements SessionRoute {
  /** The session, once connected. */
  session: ServerSession | undefined;
  /** The session's `stateVersion` the record holds (-1: the record has no state yet). */
  written = -1;
  /** The log level and subscriptions the record holds (what a change is told against). */
  logLevel: LoggingLevel | undefined;
  subscriptions: ReadonlySet<string> = new Set();
  listening = false;
  /** Tasks the session's calls started here (2025-11-25 task-augmented calls), once any. */
  tasks: string[] | undefined;
  readonly #shared: SharedSessions;
  readonly #sessionId: string;

  constructor(shared: SharedSessions, sessionId: string) {
    this.#shared = shared;
    this.#sessionId = sessionId;
  }

  outgoing(message: JsonRpcMessage): JsonRpcMessage {
    return this.#shared.outgoing(message);
  }

  incoming(message: unknown): unknown {
    return this.#shared.incoming(this.#sessionId, message);
  }

  beforeResponse(response: JsonRpcMessage): Promise<void> | undefined {
    // A task-augmented call's answer (`{ task }`): the task runs here, with this copy of the session.
    if ('result' in response && isJsonObject(response.result.task)) {
      const taskId = response.result.task.taskId;
      if (typeof taskId === 'string') (this.tasks ??= []).push(taskId);
    }
    const current = this.session;
    if (current?.protocolVersion === undefined || current.stateVersion === this.written) return undefined;
    return this.#shared.record(this.#sessionId, current, this);
  }

  // A list_changed or resource update reaches the stream's process from there (see `SharedChanges`).
  elsewhere(message: JsonRpcMessage): Promise<number> {
    return 'method' in message && (LIST_CHANGED.test(message.method) || message.method === RESOURCE_UPDATED)
      ? Promise.resolve(0)
      : this.#shared.bus.toSession(this.#sessionId, { kind: 'send', message });
  }

  async standalone(open: boolean): Promise<void> {
    const bus = this.#shared.bus;
    if (!open) {
      if (!this.listening) return;
      this.listening = false;
      return bus.unlisten(this.#sessionId);
    }
    // The process that held the stream lets it go (one holder: messages are recorded once).
    await bus.toSession(this.#sessionId, { kind: 'moved', from: bus.instanceId });
    if (this.listening) return;
    this.listening = true;
    await bus.listen(this.#sessionId).catch((error: unknown) => {
      this.listening = false;
      throw error;
    });
  }
}

export class SharedSessions {
  readonly bus: SessionBus;
  readonly #store: SessionStore;
  readonly #server: ServerRuntime;
  readonly #host: SharedSessionsHost;
  readonly #tag: string;
  readonly #routes = new Map<string, SharedRoute>();
  readonly #changes: SharedChanges;

  constructor(bus: SessionBus, store: SessionStore, server: ServerRuntime, host: SharedSessionsHost) {
    this.bus = bus;
    this.#store = store;
    this.#server = server;
    this.#host = host;
    this.#tag = `${bus.instanceId}:`;
    bus.onmessage = (payload, address) => this.#receive(payload, address);
    // The processes holding sessions' `GET` streams send a `list_changed` or resource update (this one
    // included, through its own sessions; a session's copy here without its stream sends none).
    this.#changes = new SharedChanges(bus, server, (error) => host.onError(error), {
      listChanged: (method) => this.#listChanged(method),
      resourceUpdated: (uri) => this.#resourceUpdated(uri),
    });
  }

  /** Stops telling the other processes of registry and resource changes. */
  close(): void {
    this.#changes.close();
  }

  /**
   * The route of a session's transport (its `session` set once connected). Its record gets the session's
   * state once `initialize` is answered, or holds it already (a session taken up: see `resumed`).
   */
  route(sessionId: string): SharedRoute {
    const route = new SharedRoute(this, sessionId);
    this.#routes.set(sessionId, route);
    return route;
  }

  /** A session taken up from its record: its state there is the session's own. */
  resumed(sessionId: string, session: ServerSession): void {
    const route = this.#routes.get(sessionId);
    if (!route) return;
    route.written = session.stateVersion;
    const { logLevel, subscriptions } = this.#server.sessionState(session);
    route.logLevel = logLevel;
    route.subscriptions = new Set(subscriptions);
  }

  /**
   * Whether this process's copy of a session may be unloaded as far as sharing goes: its record holds its
   * state, and no task it started here still runs (the task reports to this copy).
   */
  settled(sessionId: string, session: ServerSession): boolean {
    const route = this.#routes.get(sessionId);
    if (!route || route.written !== session.stateVersion) return false;
    const tasks = route.tasks;
    if (tasks === undefined) return true;
    const running = tasks.filter((taskId) => this.#server.tasks?.running(taskId) !== undefined);
    route.tasks = running.length > 0 ? running : undefined;
    return running.length === 0;
  }

  /** This process no longer serves the session. */
  forget(sessionId: string): void {
    this.#routes.delete(sessionId);
  }

  /** A session was ended here (`DELETE`): the other processes drop their copies. */
  ended(sessionId: string): Promise<void> {
    return this.bus.toAll({ kind: 'ended', session: sessionId });
  }

  /**
   * @internal (for `SharedRoute`) Writes a session's record: all of it the first time, then what changed
   * since (and tells the others' copies of that change).
   */
  async record(sessionId: string, session: ServerSession, route: SharedRoute): Promise<void> {
    const written = route.written;
    const first = written === -1;
    route.written = session.stateVersion;
    const { subscriptions, ...current } = this.#server.sessionState(session);
    const now = new Set(subscriptions);
    const subscribed = [...now].filter((uri) => !route.subscriptions.has(uri));
    const unsubscribed = [...route.subscriptions].filter((uri) => !now.has(uri));
    const levelChanged = current.logLevel !== route.logLevel;
    try {
      if (first) await this.#store.update(sessionId, current);
      else if (levelChanged) await this.#store.update(sessionId, { logLevel: current.logLevel });
      if (subscribed.length > 0 || unsubscribed.length > 0) {
        if (this.#store.updateSubscriptions)
          await this.#store.updateSubscriptions(sessionId, subscribed, unsubscribed);
        else await this.#store.update(sessionId, { subscriptions: subscriptions });
      }
    } catch (error) {
      route.written = written; // not written (the store failed): the next answer tries again
      throw error;
    }
    route.logLevel = current.logLevel;
    route.subscriptions = now;
    // The others' copies take the change as it comes (no read of the record).
    if (first) return;
    const change: JsonObject = { kind: 'changed', session: sessionId };
    if (levelChanged && current.logLevel !== undefined) change.logLevel = current.logLevel;
    if (subscribed.length > 0) change.subscribed = subscribed;
    if (unsubscribed.length > 0) change.unsubscribed = unsubscribed;
    await this.bus.toAll(change);
  }

  /** @internal (for `SharedRoute`) A request of the server names this process in its id; so does a cancellation of one. */
  outgoing(message: JsonRpcMessage): JsonRpcMessage {
    if (!('method' in message)) return message;
    if ('id' in message) return { ...message, id: this.#tagged(message.id) };
    if (message.method === 'notifications/cancelled' && isJsonObject(message.params)) {
      const requestId = message.params.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number')
        return { ...message, params: { ...message.params, requestId: this.#tagged(requestId) } };
    }
    return message;
  }

  /** @internal (for `SharedRoute`) A client message: delivered here with its id restored, or sent to the process it answers. */
  incoming(sessionId: string, message: unknown): unknown {
    if (!isJsonObject(message)) return message;
    const answer = 'result' in message || 'error' in message;
    const cancel = message.method === 'notifications/cancelled' && isJsonObject(message.params);
    const id = answer ? message.id : cancel ? (message.params as JsonObject).requestId : undefined;
    const parsed = typeof id === 'string' ? untag(id) : undefined;
    if (!parsed) return message;
    const restored = answer
      ? { ...message, id: parsed.id }
      : { ...message, params: { ...(message.params as JsonObject), requestId: parsed.id } };
    if (`${parsed.instance}:` === this.#tag) return restored;
    this.bus
      .toInstance(parsed.instance, { kind: 'reply', session: sessionId, message: restored })
      .catch((error: unknown) => this.#host.onError(error as Error));
    return undefined;
  }

  /** Another process's `list_changed`, on the `GET` streams held here (sessions past their handshake). */
  #listChanged(method: string): void {
    for (const { session, transport } of this.#host.sessions()) {
      if (!session.ready || !transport.holdsStandalone) continue;
      transport
        .deliverStandalone({ jsonrpc: '2.0', method })
        .catch((error: unknown) => this.#host.onError(error as Error));
    }
  }

  /**
   * Another process's `notifyResourceUpdated`: on the `GET` streams held here of the sessions subscribed
   * to it (their subscriptions as their records, and `changed`, say).
   */
  #resourceUpdated(uri: string): void {
    for (const { session, transport } of this.#host.sessions()) {
      if (!session.ready || !transport.holdsStandalone || !this.#server.subscribed(session, uri)) continue;
      transport
        .deliverStandalone({ jsonrpc: '2.0', method: RESOURCE_UPDATED, params: { uri } })
        .catch((error: unknown) => this.#host.onError(error as Error));
    }
  }

  #tagged(id: RequestId): string {
    return `${this.#tag}${typeof id === 'number' ? 'n' : 's'}${id}`;
  }

  #receive(payload: JsonObject, address: BusAddress): void {
    // A session this process let go of: whatever it was sent goes to the process that holds it now.
    if (address.to === 'session' && address.released) return;
    if (this.#changes.receive(payload, address)) return;
    const { kind } = payload;
    const sessionId = address.to === 'session' ? address.sessionId : payload.session;
    if (typeof sessionId !== 'string') return;
    const live = this.#host.live(sessionId);
    if (kind === 'ended') void this.#host.drop(sessionId).catch(() => undefined);
    if (kind === 'moved' && payload.from !== this.bus.instanceId) live?.transport.releaseStandalone();
    if (kind === 'changed' && live) {
      this.#server.resumeSession(
        live.session,
        changedState(this.#server.sessionState(live.session), payload),
      );
      this.resumed(sessionId, live.session);
    }
    if (!live || !isJsonObject(payload.message)) return;
    const message = payload.message as unknown as JsonRpcMessage;
    if (kind === 'send' && address.to === 'session')
      live.transport.deliverStandalone(message).catch((error: unknown) => this.#host.onError(error as Error));
    else if (kind === 'reply' && address.to === 'instance') live.transport.onmessage?.(message);
  }
}

/**
 * A session's state after a `changed` from another process: its new log level, the URIs subscribed and
 * unsubscribed (or the whole state, which a process of an earlier version sends).
 */
function changedState(state: SessionState, change: JsonObject): SessionState {
  const next: SessionState = isJsonObject(change.state)
    ? { ...state, ...(change.state as SessionState) }
    : state;
  if (typeof change.logLevel === 'string') next.logLevel = change.logLevel as LoggingLevel;
  const uris = new Set(next.subscriptions);
  const strings = (value: unknown) =>
    (Array.isArray(value) ? value : []).filter((uri) => typeof uri === 'string');
  for (const uri of strings(change.unsubscribed)) uris.delete(uri);
  for (const uri of strings(change.subscribed)) uris.add(uri);
  next.subscriptions = [...uris];
  return next;
}

/** The process and original id of a request id tagged by `#tagged`; undefined for any other id. */
function untag(id: string): { instance: string; id: RequestId } | undefined {
  const colon = id.indexOf(':');
  if (colon <= 0) return undefined;
  const kind = id[colon + 1];
  const rest = id.slice(colon + 2);
  if (kind === 's') return { instance: id.slice(0, colon), id: rest };
  if (kind !== 'n' || !/^-?\d+$/.test(rest)) return undefined;
  return { instance: id.slice(0, colon), id: Number(rest) };
}
