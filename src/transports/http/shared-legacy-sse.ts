/**
 * Legacy HTTP+SSE (2024-11-05) sessions shared by the processes on one session bus (the handler's `redis`
 * option). A legacy session cannot move: its one `GET /sse` stream is its only way to the client, and it
 * cannot be resumed. So the process holding the stream serves every message of the session, and a
 * `POST /messages?sessionId=…` that a load balancer sends to another process is forwarded to it on the bus
 * (the session's channel, which the holder listens to while the stream is open). The holder serves the
 * message as if it had been posted there, and the process that got the POST answers what the holder
 * answered (202; 404 for another subject's session; 429 while the client leaves its stream unread), once
 * the holder has taken the message, so the messages of a client that waits for each answer arrive in order.
 * - No process listens to the session's channel (an unknown session, or its holder died): 404 at once.
 * - The bus fails (Redis down): the POST fails with the bus's `StoreError` (503 with `Retry-After`).
 * - The holder's answer does not come within `FORWARD_TIMEOUT_MS`, or `MAX_FORWARDED` messages of this
 *   process (or `MAX_FORWARDED_CHARS` of their text) already wait for theirs: 503 with `Retry-After` (after
 *   a timeout, the message may have been served).
 * Registry changes and resource updates of other processes reach the legacy streams held here.
 * @module
 */
import { ErrorCode } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Principal } from '../../server/index.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { ServerSession } from '../../server/server-session.js';
import type { BusAddress, SessionBus } from '../../stores/session-bus.js';
import { JsonReply } from './http-exchange.js';
import { jsonRpcErrorResponse } from './http-status.js';
import { LIST_CHANGED, RESOURCE_UPDATED } from './shared-changes.js';

/** How long a forwarded message waits for the answer of the process holding its session's stream. */
export const FORWARD_TIMEOUT_MS = 5_000;
/** Forwarded messages of one process waiting for their answers at once, at most … */
export const MAX_FORWARDED = 64;
/**
 * … and their JSON text, in characters (a lone message of any size `maxBodyBytes` lets in still goes): what
 * a stalled holder's Redis connection may have to buffer stays well below Redis's pub/sub output limits.
 */
export const MAX_FORWARDED_CHARS = 8 * 1024 * 1024;

/** A session id as the legacy endpoint makes them (`crypto.randomUUID()`); nothing else is forwarded. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const POSTED = 'legacyPost';
const ANSWERED = 'legacyAnswer';

/** What the holder of a session's stream answered: a reply to send, or no such session for this caller. */
export type Served = JsonReply | 'foreign' | 'unknown';

/** A legacy session served here. */
export interface LegacyCopy {
  session: ServerSession;
  /** Sends a message on the session's stream. */
  send(message: JsonRpcMessage): Promise<void>;
}

/** What the shared legacy sessions need of the legacy endpoints. */
export interface LegacyHost {
  /** Every legacy session served here. */
  sessions(): Iterable<LegacyCopy>;
  /** Serves a message posted to a session held here, by `principal`, as a POST made here would be. */
  accept(sessionId: string, body: unknown, principal: Principal | undefined): Served;
  /** Errors no request can be told of (an answer that could not be sent). */
  onError(error: Error): void;
}

export class SharedLegacySse {
  readonly #bus: SessionBus;
  readonly #server: ServerRuntime;
  readonly #host: LegacyHost;
  /** Forwarded messages waiting for their holder's answer, by number. */
  readonly #waiting = new Map<number, (served: Served) => void>();
  /** The JSON text of the forwarded messages waiting, in characters. */
  #chars = 0;
  #next = 0;

  constructor(bus: SessionBus, server: ServerRuntime, host: LegacyHost) {
    this.#bus = bus;
    this.#server = server;
    this.#host = host;
    // The bus has one listener: the shared Streamable HTTP sessions' gets what is not for legacy sessions.
    const previous = bus.onmessage;
    bus.onmessage = (payload, address) => {
      if (!this.#receive(payload, address)) previous?.(payload, address);
    };
  }

  /** A session's stream is open here: messages posted to other processes come here (resolves once they do). */
  held(sessionId: string): Promise<void> {
    return this.#bus.listen(sessionId);
  }

  /** The session's stream ended here. */
  released(sessionId: string): void {
    this.#bus.unlisten(sessionId).catch((error: unknown) => this.#host.onError(error as Error));
  }

  /** Forwards a message posted here to the process holding its session's stream; what it answered. */
  async forward(sessionId: string, body: unknown, principal: Principal | undefined): Promise<Served> {
    if (!SESSION_ID.test(sessionId)) return 'unknown';
    if (this.#waiting.size >= MAX_FORWARDED)
      return unavailable(`${MAX_FORWARDED} messages wait for other instances already`);
    const chars = JSON.stringify(body).length;
    if (this.#waiting.size > 0 && this.#chars + chars > MAX_FORWARDED_CHARS)
      return unavailable(`the messages waiting for other instances hold ${this.#chars} characters already`);
    const number = ++this.#next;
    const answered = new Promise<Served>((resolve) => this.#waiting.set(number, resolve));
    this.#chars += chars;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const payload = {
        kind: POSTED,
        from: this.#bus.instanceId,
        number,
        principal: asJson(principal),
        body,
      };
      if ((await this.#bus.toSession(sessionId, payload)) === 0) return 'unknown';
      timer = setTimeout(() => {
        const why = `the instance holding the session's stream did not answer within ${FORWARD_TIMEOUT_MS} ms`;
        this.#waiting.get(number)?.(unavailable(why));
      }, FORWARD_TIMEOUT_MS);
      (timer as { unref?: () => void }).unref?.();
      return await answered;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(number);
      this.#chars -= chars;
    }
  }

  /** Handles a bus message meant for legacy sessions; false for any other. */
  #receive(payload: JsonObject, address: BusAddress): boolean {
    if (payload.kind === POSTED && address.to === 'session') {
      this.#serve(address.sessionId, payload);
      return true;
    }
    if (payload.kind === ANSWERED && address.to === 'instance') {
      this.#answered(payload);
      return true;
    }
    if (address.to === 'all') this.#changed(payload); // the shared sessions hear it too
    return false;
  }

  /** A message another process forwarded to a session whose stream is here: served, and answered back. */
  #serve(sessionId: string, payload: JsonObject): void {
    const { from, number, principal, body } = payload;
    if (typeof from !== 'string' || typeof number !== 'number') return;
    const served = this.#host.accept(sessionId, body, toPrincipal(principal));
    const answer =
      typeof served === 'string'
        ? { outcome: served }
        : {
            outcome: 'reply',
            status: served.status,
            headers: served.headers.toObject(),
            body: served.bodyText,
          };
    this.#bus
      .toInstance(from, { kind: ANSWERED, number, ...answer })
      .catch((error: unknown) => this.#host.onError(error as Error));
  }

  /** The answer to a message forwarded from here. */
  #answered(payload: JsonObject): void {
    const { number, outcome, status, headers, body } = payload;
    const resolve = typeof number === 'number' ? this.#waiting.get(number) : undefined;
    if (!resolve) return; // too late
    if (outcome === 'foreign' || outcome === 'unknown') resolve(outcome);
    else if (outcome === 'reply' && typeof status === 'number' && isJsonObject(headers))
      resolve(new JsonReply(status, stringValues(headers), typeof body === 'string' ? body : null));
  }

  /** Another process's registry change or resource update, on the legacy streams held here. */
  #changed(payload: JsonObject): void {
    const { kind, method, uri } = payload;
    let message: JsonRpcMessage;
    if (kind === 'listChanged' && typeof method === 'string' && LIST_CHANGED.test(method))
      message = { jsonrpc: '2.0', method };
    else if (kind === 'resourceUpdated' && typeof uri === 'string')
      message = { jsonrpc: '2.0', method: RESOURCE_UPDATED, params: { uri } };
    else return;
    for (const copy of this.#host.sessions()) {
      if (!copy.session.ready) continue;
      if (typeof uri === 'string' && !this.#server.subscribed(copy.session, uri)) continue;
      copy.send(message).catch((error: unknown) => this.#host.onError(error as Error));
    }
  }
}

/** 503 with `Retry-After` for a message that could not be forwarded, saying why. */
function unavailable(why: string): JsonReply {
  const message = `Service Unavailable: a message for a legacy HTTP+SSE session: ${why}`;
  return jsonRpcErrorResponse(503, ErrorCode.InternalError, message, { 'retry-after': '1' });
}

/** A principal as a bus payload (its claims left out when they are no JSON). */
function asJson(principal: Principal | undefined): JsonObject | null {
  if (!principal) return null;
  try {
    return JSON.parse(JSON.stringify(principal)) as JsonObject;
  } catch {
    const { claims: _claims, ...rest } = principal;
    return JSON.parse(JSON.stringify(rest)) as JsonObject;
  }
}

function toPrincipal(value: unknown): Principal | undefined {
  if (!isJsonObject(value) || typeof value.subject !== 'string' || !Array.isArray(value.scopes))
    return undefined;
  return value as unknown as Principal;
}

function stringValues(headers: JsonObject): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') values[name] = value;
  return values;
}
