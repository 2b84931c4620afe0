/**
 * The logical streams of one Streamable HTTP session (or of one stateless request), as bookkeeping: the
 * stream each waiting request's response goes to, the ids of the streams recorded in the event store (so
 * that `Last-Event-ID` resumes only this session's), a stream settled once its requests are answered (a
 * JSON POST answered then), the last finished streams kept resumable, the standalone stream (taken up from
 * another process, or given up to it), and what happens when a client leaves a stream.
 * @module
 */
import { ErrorCode, asError } from '../../protocol/errors.js';
import { requestIdInUse, type RequestId } from '../../protocol/jsonrpc.js';
import { SmallMap } from '../../protocol/engine/small-map.js';
import { QueuedOutput } from '../queued-output.js';
import type { JsonReply } from './http-exchange.js';
import type { HttpSessionConfig, SessionRoute } from './http-session-transport-options.js';
import { answerStatus, jsonResponse, jsonRpcErrorResponse } from './http-status.js';
import type { LogicalStream } from './logical-stream.js';
import { SseSink } from './sse-sink.js';
import { flatString } from './flat-string.js';

/**
 * Finished streams a session keeps resumable: a client that lost its connection resumes within a retry
 * interval, and only the streams it was reading; the rest of the session's history leaves the store.
 */
const FINISHED_KEPT = 32;

/**
 * The streams of a session: the base of `HttpSessionTransport`, which writes to them and serves the
 * session's HTTP requests. A base class rather than an object the transport holds, so that it is no
 * allocation of its own: a session-less server makes a transport per request, and every idle session keeps
 * one.
 */
export abstract class HttpSessionStreams {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  /** No request is waiting for its response any more. */
  onidle?: () => void;
  readonly sessionId: string | undefined;
  /** The handler's, shared by its sessions. */
  protected readonly config: HttpSessionConfig;
  protected readonly route: SessionRoute | undefined;
  /** Headers every response of this session carries (its session id). */
  protected readonly headers: Record<string, string>;
  /** Mostly one stream at a time (and none when idle): no hash table kept per idle session. */
  readonly #streams = new SmallMap<string, LogicalStream>();
  #streamCount = 0;
  readonly #byRequest = new SmallMap<RequestId, LogicalStream>();
  /**
   * With an event store, every recorded stream's id is `<prefix>_<n>`: a random prefix (unguessable,
   * unique across processes) and a counter. `Last-Event-ID` may resume a stream of this session only, told
   * by its prefix: an open one, or one of the last `FINISHED_KEPT` finished ones (`#finished`), while the
   * store keeps it. Older finished streams are deleted from the store, all of them when the session ends:
   * keeping every id for the session's life grew ≈0.5 KB per POST, and the store as much. Made with the
   * first stream that needs it (one flat string).
   */
  #prefix: string | undefined;
  /** The ids of the last finished recorded streams, oldest first (at most `FINISHED_KEPT`), once any. */
  #finished: string[] | undefined;
  #standalone: LogicalStream | undefined;
  /** What the session's SSE streams hold unread, all together (made with the first SSE stream). */
  #output: QueuedOutput | undefined;

  /**
   * @param config the handler's, shared by its sessions
   * @param sessionId undefined: a stateless request's transport
   * @param route how a session shared by several processes reaches them
   */
  /** A stateless request's transport (no session id): see `Transport.perRequest`. */
  get perRequest(): boolean {
    return this.sessionId === undefined;
  }

  constructor(config: HttpSessionConfig, sessionId?: string, route?: SessionRoute) {
    this.config = config;
    this.sessionId = sessionId;
    this.route = route;
    this.headers = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
  }

  /** The session closed: no stream is left, and a client leaving one changes nothing. */
  abstract get closed(): boolean;

  /** What the session's SSE streams hold unread, once an SSE stream was made. */
  protected get output(): QueuedOutput | undefined {
    return this.#output;
  }

  protected get queue(): QueuedOutput {
    return (this.#output ??= new QueuedOutput(this.config));
  }

  /**
   * The prefix of this session's recorded streams' ids: a shared session's streams are told by its id,
   * in whichever process they were opened.
   */
  get #streamPrefix(): string {
    return (this.#prefix ??= flatString(`${this.#sharedPrefix ?? ''}${crypto.randomUUID()}_`));
  }

  /** The prefix of every stream id of a shared session, whatever process opened the stream. */
  get #sharedPrefix(): string | undefined {
    const sessionId = this.sessionId;
    return this.route && sessionId !== undefined ? `${sessionId}_` : undefined;
  }

  /** The session's standalone (`GET`) stream is here (open, or waiting for the client to resume it). */
  get holdsStandalone(): boolean {
    return this.#standalone !== undefined;
  }

  protected get standalone(): LogicalStream | undefined {
    return this.#standalone;
  }

  /** A client reads the standalone stream here (its sink is open). */
  protected get standaloneRead(): boolean {
    return !!this.#standalone?.sink && !this.#standalone.sink.closed;
  }

  /** Logical streams still open (POST streams awaiting responses, and the standalone stream). */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Streams `Last-Event-ID` may resume: open ones whose events go to the event store, and the last finished. */
  get resumableStreams(): number {
    let count = this.#finished?.length ?? 0;
    for (const stream of this.#streams.values()) if (this.recorded(stream)) count++;
    return count;
  }

  /** No request waits for its response, no client reads a stream (a `GET` stream whose client left is none). */
  get idle(): boolean {
    if (this.#byRequest.size > 0) return false;
    for (const stream of this.#streams.values()) if (!stream.standalone || stream.sink) return false;
    return true;
  }

  /** Requests still waiting for their response. */
  get pendingRequests(): number {
    return this.#byRequest.size;
  }

  /** The stream of a request still waiting for its response. */
  protected streamFor(requestId: RequestId): LogicalStream | undefined {
    return this.#byRequest.get(requestId);
  }

  /** Another process took up this shared session's standalone stream: it ends here (its events stay). */
  releaseStandalone(): void {
    const standalone = this.#standalone;
    if (!standalone || this.closed) return;
    this.#standalone = undefined;
    this.#streams.delete(standalone.id);
    standalone.sink?.close();
    standalone.sink = undefined;
    void this.route?.standalone(false).catch(() => undefined);
  }

  /** An error response of this session: its headers, the `id` shaped by its revision. */
  protected error(status: number, code: number, message: string): JsonReply {
    return jsonRpcErrorResponse(status, code, message, this.headers, this.config.protocolVersion?.(this));
  }

  /** Why a POST's request ids cannot be served: one is still in use by an unanswered request, or repeated. */
  protected idProblem(requestIds: readonly RequestId[]): string | undefined {
    if (requestIds.length === 1) {
      const id = requestIds[0]!;
      return this.#byRequest.has(id) ? requestIdInUse(id) : undefined;
    }
    const seen = new Set<RequestId>();
    for (const id of requestIds) {
      if (this.#byRequest.has(id)) return requestIdInUse(id);
      if (seen.has(id)) return `Invalid request: request id ${JSON.stringify(id)} appears twice in the batch`;
      seen.add(id);
    }
    return undefined;
  }

  /** Whether `Last-Event-ID` names an event of this session's streams, told by their prefix. */
  protected owns(lastEventId: string): boolean {
    // A shared session's made in any process; else made here, once a stream was.
    const prefix = this.#sharedPrefix ?? this.#prefix;
    return prefix !== undefined && lastEventId.startsWith(prefix);
  }

  /**
   * The stream a replayed event belongs to, when it goes on live here: open here, or a shared session's
   * standalone stream that another process opened (adopted).
   */
  protected resumed(streamId: string): LogicalStream | undefined {
    return this.#streams.get(streamId) ?? this.#adopt(streamId);
  }

  /**
   * A shared session's standalone stream opened by another process, resumed here: it becomes this
   * process's standalone stream (when this one has none open).
   */
  #adopt(streamId: string): LogicalStream | undefined {
    const shared = this.#sharedPrefix;
    if (shared === undefined || !streamId.startsWith(shared) || !/_g\d+$/.test(streamId)) return undefined;
    if (this.standaloneRead) return undefined;
    if (this.#standalone) this.#streams.delete(this.#standalone.id);
    const stream: LogicalStream = {
      id: streamId,
      standalone: true,
      pending: new Set(),
      sink: undefined,
      json: undefined,
    };
    this.#streams.set(streamId, stream);
    this.#standalone = stream;
    return stream;
  }

  /** The standalone stream: the one here, or a new one. */
  protected standaloneStream(): LogicalStream {
    return (this.#standalone ??= this.open(true, []));
  }

  protected open(standalone: boolean, requestIds: readonly RequestId[]): LogicalStream {
    const count = ++this.#streamCount;
    const stream: LogicalStream = {
      // Stream ids are part of event ids when the stream is recorded (then prefixed, see `#prefix`);
      // otherwise they only key this session's map. A shared session's standalone stream is `…_g<n>`.
      id: this.#records(standalone)
        ? `${this.#streamPrefix}${standalone && this.route ? 'g' : ''}${count}`
        : `${count}`,
      standalone,
      pending: new Set(requestIds),
      sink: undefined,
      json: undefined,
    };
    this.#streams.set(stream.id, stream);
    for (const id of requestIds) this.#byRequest.set(id, stream);
    return stream;
  }

  /** A new SSE sink for a stream: the client leaving it (or leaving too much unread) is a disconnection. */
  protected attach(stream: LogicalStream): SseSink {
    const sink = new SseSink(this.config.keepAliveMs, this.queue);
    stream.sink = sink;
    sink.oncancel = () => this.disconnected(stream);
    // Too much unread: the stream ends after what it holds, as if the client had gone (it may resume).
    sink.onoverflow = sink.oncancel;
    return sink;
  }

  /** A POST's stream whose messages were never dispatched: gone, its request ids free again. */
  protected unopen(stream: LogicalStream, requestIds: readonly RequestId[]): void {
    for (const id of requestIds) this.#byRequest.delete(id);
    this.#streams.delete(stream.id);
  }

  /** Whether a stream's events go to the event store (SSE streams, when there is one). */
  protected recorded(stream: LogicalStream): boolean {
    return this.#records(stream.standalone) && !stream.json;
  }

  /** Whether a stream's events go to the event store: every SSE stream's, when there is one. */
  #records(standalone: boolean): boolean {
    return this.config.eventStore !== undefined && (standalone || this.config.responseMode === 'sse');
  }

  /** A request was answered on its stream: a stream with no request left waiting is finished. */
  protected settle(stream: LogicalStream, id: RequestId): void {
    stream.pending.delete(id);
    this.#byRequest.delete(id);
    if (this.#byRequest.size === 0 && this.onidle) queueMicrotask(() => this.onidle?.());
    if (stream.pending.size > 0 || stream.standalone) return;
    this.#streams.delete(stream.id);
    if (this.recorded(stream)) this.#keepFinished(stream.id);
    if (stream.json) {
      const { responses, batch, resolve, unwatch } = stream.json;
      unwatch();
      // A lone answer that is a rate-limit refusal is a 429, a failed shared store a 503 (both with
      // Retry-After), as in the stateless era.
      const status = batch ? 200 : answerStatus(responses[0]);
      resolve(jsonResponse(batch ? responses : responses[0], status, this.headers));
    }
    stream.sink?.close();
  }

  /** Keeps a finished stream resumable, and deletes the oldest such stream from the store past the limit. */
  #keepFinished(id: string): void {
    const finished = this.#finished;
    // An array made with room for one id (a first push would make room for 17).
    if (!finished) {
      this.#finished = [id];
      return;
    }
    finished.push(id);
    if (finished.length <= FINISHED_KEPT) return;
    const deleted = this.config.eventStore?.deleteStream(finished.shift()!);
    if (deleted instanceof Promise) deleted.catch((error: unknown) => this.onerror?.(asError(error)));
  }

  /** The ids of the last finished recorded streams, given up (the session closed: they leave the store). */
  protected takeFinished(): string[] {
    return this.#finished?.splice(0) ?? [];
  }

  /** The client went away from a stream (see the disconnection rule of `HttpSessionTransport`). */
  protected disconnected(stream: LogicalStream): void {
    stream.sink = undefined;
    if (stream.standalone || this.closed) return;
    if (this.config.eventStore && !stream.json) return; // resumable: the result waits for a GET
    for (const requestId of [...stream.pending]) {
      this.#byRequest.delete(requestId);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client disconnected' },
      });
    }
    stream.pending.clear();
    this.#streams.delete(stream.id);
    if (this.#byRequest.size === 0) this.onidle?.();
  }

  /**
   * Ends every stream (the session closed): its sink closes, a JSON POST waiting for its answers gets 503.
   * Returns the streams that were open.
   */
  protected endStreams(): LogicalStream[] {
    const open = this.#streams.values();
    if (this.#standalone) void this.route?.standalone(false).catch(() => undefined);
    for (const stream of open) {
      stream.sink?.close();
      stream.start?.started();
      stream.json?.unwatch();
      stream.json?.resolve(this.error(503, ErrorCode.InternalError, 'The session closed'));
    }
    this.#streams.clear();
    this.#byRequest.clear();
    return open;
  }
}
