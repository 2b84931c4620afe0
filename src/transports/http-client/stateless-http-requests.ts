/**
 * The client side of stateless-era (2026-07-28) Streamable HTTP exchanges: each request is its own POST
 * with the request metadata headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`),
 * never a session id; the answer is one JSON body or an SSE stream that ends with the response. Nothing
 * resumes: a stream that ends early loses its request (answered locally with an error; the caller may
 * send it again as a new request). Cancelling a request closes its stream, which is how the server
 * learns of it (no `notifications/cancelled` is posted). Each answer is read behind the transport's
 * `ReadGate`, as the session's streams are: while the POSTs of the client's own answers pile up (a server
 * sending requests down a request's stream), nothing more is read, so what the server sends meanwhile
 * waits in the connection, not in the client.
 *
 * `Mcp-Param-*` headers come from the called tool's `x-mcp-header` marks. The tool definitions are
 * learned from the `tools/list` results that pass through here (the latest definition of each name
 * wins), unless the `toolSchemas` option supplies them. A call the server refuses with HeaderMismatch
 * (-32020), its tool unknown here or changed, is followed by a `tools/list` of the transport's own and
 * sent once more with the headers the listed schema gives (see `list-tool-schema.ts`).
 * @module
 */
import { ErrorCode, LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import {
  errorResponse,
  isJsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { hasStatelessMeta } from '../../protocol/types/stateless.js';
import { CancellationSource, abortError } from '../../protocol/engine/cancellation.js';
import { SlotMap } from '../../protocol/engine/slot-map.js';
import { requestMetadataHeaders } from '../http/request-metadata-headers.js';
import { TransportError } from '../transport-error.js';
import { readBoundedText } from './bounded-body.js';
import { discardBody, mediaType } from './http-client-options.js';
import { httpStatusError, isAuthStatus, jsonRpcErrorWithId, readErrorBody } from './http-failure.js';
import { jsonMessages } from './json-messages.js';
import { listToolSchema } from './list-tool-schema.js';
import { eventTooLargeError } from './message-limit.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { readEventStream } from './read-event-stream.js';
import type { ReadGate } from './read-gate.js';
import { SseParser } from './sse-parser.js';

/** Whether a message is a stateless-era request (its `_meta` names the protocol version). */
export function isStatelessRequest(message: JsonRpcMessage | JsonRpcMessage[]): message is JsonRpcRequest {
  return (
    !Array.isArray(message) &&
    'method' in message &&
    'id' in message &&
    message.method !== 'initialize' &&
    hasStatelessMeta(message.params)
  );
}

/** Whether two sets of request headers are the same (names are lowercase, values exact). */
function sameHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** What the exchanges need from their transport. */
export interface StatelessHttpHost {
  readonly endpoint: McpEndpoint;
  /** Aborted when the transport closes. */
  readonly signal: AbortSignal;
  /** A message for the engine. */
  deliver(message: unknown): void;
  report(error: Error): void;
  /** The caller's tool definitions, when it supplies them (see the `toolSchemas` option). */
  toolSchemas?: ((name: string) => object | undefined) | undefined;
  /** Shut while the engine holds messages it read and has not started: no body is read meanwhile. */
  readonly gate?: ReadGate | undefined;
}

export class StatelessHttpRequests {
  readonly #host: StatelessHttpHost;
  /**
   * Requests waiting for their response, and how to abandon each (a slot map: see `SlotMap`). Each one's
   * fetch follows its own cancellation only; closing the transport aborts them all through one listener on
   * the transport's signal. (`AbortSignal.any([transport, own])` per request made each request's signal a
   * dependant of the long-lived one, held through a `WeakRef`, and V8's young-generation collector keeps
   * what a `WeakRef` points to: one more of the references that kept each request alive through every
   * scavenge; `nodeFetch` removed the rest.)
   */
  readonly #inflight = new SlotMap<RequestId, CancellationSource>();
  /** `tools/list` requests in flight: their results teach us the tools' schemas. */
  readonly #lists = new Set<RequestId>();
  readonly #schemas = new Map<string, unknown>();

  constructor(host: StatelessHttpHost) {
    this.#host = host;
    host.signal.addEventListener(
      'abort',
      () => {
        for (const controller of this.#inflight.values()) controller.abort(host.signal.reason);
      },
      { once: true },
    );
  }

  /** Requests waiting for their response. */
  get size(): number {
    return this.#inflight.size;
  }

  /** Closes the stream of `id`, if it is ours; true when it was. */
  cancel(id: RequestId): boolean {
    const controller = this.#inflight.get(id);
    if (!controller) return false;
    this.#forget(id);
    controller.abort(abortError());
    return true;
  }

  /** POSTs one request. Resolves once the server answered the POST (a stream is read on in the background). */
  async send(message: JsonRpcRequest): Promise<void> {
    const { id } = message;
    // A cancellation, not an AbortController: on Node 20 an `AbortSignal` outlives the young-generation
    // collections, and `nodeFetch` follows a cancellation without making one.
    const controller = new CancellationSource();
    if (this.#host.signal.aborted) controller.abort(this.#host.signal.reason);
    this.#inflight.set(id, controller);
    if (message.method === 'tools/list') this.#lists.add(id);
    const name = message.params?.name;
    const call = message.method === 'tools/call' && typeof name === 'string';
    return this.#post(message, controller, call ? this.#schema(name) : undefined, call);
  }

  /**
   * POSTs `message` with the headers `schema` (the called tool's) gives. A `tools/call` refused with
   * HeaderMismatch (-32020) when `mayRelist` lists the tools and, when the tool's listed schema gives
   * other headers, is sent again once with them; else the -32020 is its answer.
   */
  async #post(
    message: JsonRpcRequest,
    controller: CancellationSource,
    schema: unknown,
    mayRelist: boolean,
  ): Promise<void> {
    const { id } = message;
    const headers = requestMetadataHeaders(message, schema);
    let response: Response;
    try {
      response = await this.#host.endpoint.request('POST', controller, {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': undefined,
        ...headers,
        body: JSON.stringify(message),
      });
    } catch (error) {
      if (this.#cancelled(controller)) return; // its caller has stopped waiting
      this.#forget(id);
      throw error;
    }
    if (!response.ok) {
      // A stateless error (-32020, -32022, -32601, …) comes with the request's id: it is the answer.
      const body = await readErrorBody(response);
      const rpcError = isAuthStatus(response.status) ? undefined : jsonRpcErrorWithId(body);
      if (mayRelist && rpcError?.id === id && rpcError.error.code === ErrorCode.HeaderMismatch) {
        const listed = await listToolSchema(this.#host.endpoint, controller, message, (result) =>
          this.#learn(result),
        );
        if (this.#inflight.get(id) !== controller) return; // cancelled meanwhile
        if (listed !== undefined && !sameHeaders(requestMetadataHeaders(message, listed), headers))
          return this.#post(message, controller, listed, false);
      }
      if (rpcError) this.#receive(rpcError);
      if (this.#inflight.get(id) !== controller) return; // answered, or cancelled meanwhile
      this.#forget(id);
      throw httpStatusError(`POST ${this.#host.endpoint.url.href}`, response, body);
    }
    const type = mediaType(response);
    if (type === 'text/event-stream' && response.body) {
      void this.#follow(id, controller, response.body);
    } else if (type === 'application/json') {
      let text: string;
      try {
        await this.#host.gate?.opened();
        const what = `The answer to request ${JSON.stringify(id)} (POST ${this.#host.endpoint.url.href})`;
        text = await readBoundedText(response, this.#host.endpoint.maxMessageSize, what, id);
      } catch (error) {
        if (this.#cancelled(controller)) return;
        this.#forget(id);
        if (error instanceof TransportError && error.code === LocalErrorCode.MessageTooLarge) throw error;
        throw new TransportError(
          LocalErrorCode.SendFailed,
          `Reading the response failed: ${errorMessage(error)}`,
          {
            cause: error,
          },
        );
      }
      this.#parse(text);
      this.#lost(id, 'the JSON body did not hold its response');
    } else {
      await discardBody(response);
      this.#forget(id);
      throw new TransportError(
        LocalErrorCode.SendFailed,
        `POST ${this.#host.endpoint.url.href} answered HTTP ${response.status} with unexpected content type "${type}"`,
        { details: { status: response.status } },
      );
    }
  }

  /** Reads a request's SSE stream until its response; a stream that ends first loses the request. */
  async #follow(
    id: RequestId,
    controller: CancellationSource,
    body: ReadableStream<Uint8Array>,
  ): Promise<void> {
    let cause: unknown;
    const maxMessageSize = this.#host.endpoint.maxMessageSize;
    try {
      await readEventStream(
        body,
        new SseParser({ maxEventSize: maxMessageSize }),
        (event) => {
          if (event.tooLarge) {
            // Its response, or a message before it: either way the response cannot come whole.
            this.#tooLarge(id, maxMessageSize);
            return false;
          }
          if (event.type === 'message' && event.data !== '') this.#parse(event.data);
          return this.#inflight.get(id) === controller;
        },
        this.#host.gate,
      );
    } catch (error) {
      cause = error;
    }
    if (this.#host.signal.aborted || controller.aborted) return;
    const reason = cause === undefined ? 'the server ended it' : `it broke (${errorMessage(cause)})`;
    this.#lost(id, `The SSE stream of request ${id} ended before its response: ${reason}`);
  }

  /** An event of request `id`'s stream passed `maxMessageSize`: the request fails with MESSAGE_TOO_LARGE. */
  #tooLarge(id: RequestId, maxMessageSize: number): void {
    if (!this.#inflight.has(id)) return;
    this.#forget(id);
    const what = `An event of the SSE stream of request ${JSON.stringify(id)} (POST ${this.#host.endpoint.url.href})`;
    // Reported with the request's id: the engine fails that request with this error.
    this.#host.report(eventTooLargeError(what, maxMessageSize, id));
  }

  /** Answers a request that will get no response locally, so its caller is not left waiting. */
  #lost(id: RequestId, reason: string): void {
    if (!this.#inflight.has(id)) return;
    this.#forget(id);
    const error = new TransportError(LocalErrorCode.ConnectionClosed, reason, {
      details: { requestIds: [id] },
    });
    this.#host.report(error);
    this.#host.deliver(errorResponse(id, { code: ErrorCode.InternalError, message: reason }));
  }

  #parse(text: string): void {
    for (const item of jsonMessages(text, (error) => this.#host.report(error))) this.#receive(item);
  }

  #receive(message: unknown): void {
    if (isJsonObject(message) && ('result' in message || 'error' in message)) {
      const id = message.id as RequestId;
      if (!this.#inflight.has(id)) return; // cancelled, or not ours
      if (this.#lists.has(id)) this.#learn(message.result);
      this.#forget(id);
    }
    this.#host.deliver(message);
  }

  /** Remembers the input schema of every tool in a `tools/list` result. */
  #learn(result: unknown): void {
    if (!isJsonObject(result) || !Array.isArray(result.tools)) return;
    for (const tool of result.tools as unknown[]) {
      if (isJsonObject(tool) && typeof tool.name === 'string') this.#schemas.set(tool.name, tool.inputSchema);
    }
  }

  #schema(name: string): unknown {
    return this.#host.toolSchemas ? this.#host.toolSchemas(name) : this.#schemas.get(name);
  }

  /** Abandoned by `cancel` (not by the transport's closing, which fails what is in flight). */
  #cancelled(controller: CancellationSource): boolean {
    return controller.aborted && !this.#host.signal.aborted;
  }

  #forget(id: RequestId): void {
    this.#inflight.delete(id);
    this.#lists.delete(id);
  }
}
