/**
 * The handshake era's SSE streams of a Streamable HTTP client: the POST response streams (and which one
 * owes each request's response), the standalone GET stream for the server's own messages, their
 * reconnection with `Last-Event-ID`, and the parsing of the messages they (and JSON answers) carry. A
 * stream that cannot go on is reported, and what it still owed is answered locally with JSON-RPC errors.
 * @module
 */
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import { ErrorCode, LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { errorResponse, type RequestId } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';
import { mediaType } from './http-client-options.js';
import { httpStatusError, readErrorBody } from './http-failure.js';
import { jsonMessages } from './json-messages.js';
import { eventTooLargeError } from './message-limit.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { ReadGate } from './read-gate.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import { ResumableStream, type Attempt, type StreamHost } from './resumable-stream.js';

/**
 * How long the handshake waits for the GET stream's first answer. A server may send its own requests on
 * that stream as soon as the client's first request arrives (the official SDK's server does, for an
 * `elicitation/create` sent without a related request); sent before the stream is open, they are lost.
 * A server that holds its answer back costs the handshake this much, once.
 */
const LISTEN_WAIT_MS = 2000;

/** What the streams need from their transport. */
export interface SessionStreamsHost {
  readonly endpoint: McpEndpoint;
  /** Aborted when the transport closes; stops waits and reads. */
  readonly signal: AbortSignal;
  readonly policy: ReconnectPolicy;
  /** Shut while the client is behind: no stream reads meanwhile. */
  readonly gate: ReadGate;
  /** Whether the transport is open. */
  open(): boolean;
  /** One GET to the endpoint with these headers, aborted when the transport closes or by `cancel`. */
  get(headers: Record<string, string | undefined>, cancel?: Cancellation): Promise<Response>;
  /** Whether the client's initialize is known (a new session can be started). */
  renewable(): boolean;
  /** The server ended session `ended`: start a new one, unless that was done already. */
  renew(ended: string): void;
  /** The server ended the session: report it and close (without a DELETE). */
  expire(what: string, response: Response, body: string): Error;
  /**
   * One message the server sent (to its transport's usual handling); `related`: the request whose POST
   * stream brought it, when it was the POST's only one.
   */
  deliver(message: unknown, related?: RequestId): void;
  /** A message for the engine, as is. */
  answer(message: unknown): void;
  report(error: Error): void;
}

export class SessionStreams implements StreamHost {
  readonly signal: AbortSignal;
  readonly policy: ReconnectPolicy;
  readonly maxMessageSize: number;
  readonly gate: ReadGate;
  readonly #host: SessionStreamsHost;
  /** Which stream owes the response to each request. */
  readonly #awaiting = new Map<RequestId, ResumableStream>();
  /** The POSTs sent or followed now, cancelled when the transport closes. */
  readonly #live = new Set<ResumableStream>();
  #listening = false;

  constructor(host: SessionStreamsHost) {
    this.#host = host;
    this.signal = host.signal;
    this.policy = host.policy;
    this.gate = host.gate;
    this.maxMessageSize = host.endpoint.maxMessageSize;
  }

  /**
   * A POST about to be sent, owing the responses to `requestIds`: what is sent, read and resumed of it is
   * cancelled with its `cancellation`. `release` it once it is over.
   */
  track(requestIds: RequestId[]): ResumableStream {
    const stream = new ResumableStream('post', requestIds, this);
    for (const id of requestIds) this.#awaiting.set(id, stream);
    this.#live.add(stream);
    return stream;
  }

  /** A POST is over (answered, refused, or its stream followed to the end). */
  release(stream: ResumableStream): void {
    this.#live.delete(stream);
    for (const id of stream.pending) if (this.#awaiting.get(id) === stream) this.#awaiting.delete(id);
  }

  /** A response arrived: no stream owes it any more. */
  settle(id: RequestId): void {
    const stream = this.#awaiting.get(id);
    if (!stream) return;
    stream.pending.delete(id);
    this.#awaiting.delete(id);
    stream.settled();
  }

  /**
   * The client gave up on request `id` (it timed out or was cancelled): the POST that carries it is dropped
   * when it owes nothing else (its response, or its stream, may never end), and is not resumed.
   */
  giveUp(id: RequestId): void {
    const stream = this.#awaiting.get(id);
    this.settle(id);
    if (stream?.kind === 'post' && stream.pending.size === 0)
      stream.cancel(`request ${String(id)} was given up`);
  }

  /** The transport closed: nothing is owed any more, and what is open is dropped. */
  clear(): void {
    this.#awaiting.clear();
    for (const stream of this.#live) stream.cancel('the transport closed');
    this.#live.clear();
  }

  /**
   * Opens the standalone GET stream for the server's own requests and notifications. Resolves once the
   * first GET is answered (the stream is open, refused, or to be retried), or after `LISTEN_WAIT_MS`.
   */
  listen(): Promise<void> {
    if (this.#listening) return Promise.resolve();
    this.#listening = true;
    const stream = new ResumableStream('get', [], this);
    const first = this.reconnect(stream);
    void first.then((attempt) => stream.follow(attempt));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LISTEN_WAIT_MS);
      timer.unref?.();
    });
    return Promise.race([first.then(() => undefined), waited]).finally(() => clearTimeout(timer));
  }

  /** Opens the GET stream of a new session (the old session's ended with it). */
  relisten(): void {
    this.#listening = false;
    void this.listen();
  }

  /**
   * The data of one `message` event (of `stream`), or a JSON answer's body: one message or a batch. What a
   * POST's stream brings belongs to the request it carried (the spec: such messages SHOULD relate to it),
   * when it carried one (a 2025-03-26 batch's stream names none).
   */
  deliver(text: string, stream?: ResumableStream): void {
    const ids = stream?.kind === 'post' ? stream.requestIds : [];
    const related = ids.length === 1 ? ids[0] : undefined;
    for (const item of jsonMessages(text, (error) => this.#host.report(error)))
      this.#host.deliver(item, related);
  }

  /**
   * An event over `maxMessageSize` (skipped): on a POST's stream the responses it owes cannot come whole,
   * so those requests fail at once with MESSAGE_TOO_LARGE and the stream is left; on the GET stream it is
   * reported, and the stream read on.
   */
  tooLarge(stream: ResumableStream): boolean {
    const host = this.#host;
    if (stream.kind === 'get') {
      host.report(eventTooLargeError('An event of the server message stream (GET)', this.maxMessageSize));
      return true;
    }
    const ids = [...stream.pending];
    for (const id of ids) this.settle(id);
    // Reported with each request's id: the engine fails that request with this error.
    for (const id of ids) {
      const what = `An event of the SSE stream of request ${JSON.stringify(id)}`;
      host.report(eventTooLargeError(what, this.maxMessageSize, id));
    }
    return false;
  }

  /** GETs the endpoint (with `Last-Event-ID` when the stream has one). */
  async reconnect(stream: ResumableStream): Promise<Attempt> {
    const host = this.#host;
    const sessionId = host.endpoint.sessionId;
    let response: Response;
    try {
      response = await host.get(
        { accept: 'text/event-stream', 'last-event-id': stream.lastEventId },
        stream.kind === 'post' ? stream.cancellation : undefined,
      );
    } catch (error) {
      stream.failures += 1;
      stream.lastError = error;
      return host.open() ? 'retry' : 'stop';
    }
    if (response.ok && mediaType(response) === 'text/event-stream') {
      stream.failures = 0;
      return response;
    }
    const body = await readErrorBody(response);
    const what = `GET ${host.endpoint.url.href}`;
    stream.lastError = httpStatusError(what, response, body, LocalErrorCode.ConnectionClosed);
    // The session ended (the spec: the client MUST start a new one). A stream of it cannot be resumed in
    // another: what it owed fails, and the new session listens again. A first GET answered 404 may be a
    // server with no GET stream at all: it is left to the next POST to tell (renewing on it could loop).
    if (response.status === 404 && sessionId !== undefined) {
      if (!host.renewable()) {
        host.expire(what, response, body);
      } else if (!stream.opened) {
        this.#listening = false; // the next POST to get a 404 starts a new session, which listens again
      } else {
        if (stream.kind === 'post') this.abandon(stream, `the server ended session ${sessionId} (HTTP 404)`);
        host.renew(sessionId);
      }
      return 'stop';
    }
    const transient = response.ok || response.status >= 500 || [408, 409, 429].includes(response.status);
    if (transient) {
      stream.failures += 1;
      return 'retry';
    }
    if (response.status === 405 && stream.kind === 'get') return 'stop'; // no server-initiated messages
    this.abandon(stream, errorMessage(stream.lastError));
    return 'stop';
  }

  /** Gives up on a stream: reports it, and answers what it still owed with local errors. */
  abandon(stream: ResumableStream, reason: string): void {
    const host = this.#host;
    if (!host.open()) return;
    const ids = [...stream.pending];
    for (const id of ids) this.#awaiting.delete(id);
    stream.pending.clear();
    const what =
      stream.kind === 'get' ? 'The server message stream' : `The SSE stream of request ${ids.join(', ')}`;
    const error = new TransportError(LocalErrorCode.ConnectionClosed, `${what} was lost: ${reason}`, {
      cause: stream.lastError,
      details: { requestIds: ids },
    });
    host.report(error);
    for (const id of ids) {
      host.answer(errorResponse(id, { code: ErrorCode.InternalError, message: error.message }));
    }
  }
}
