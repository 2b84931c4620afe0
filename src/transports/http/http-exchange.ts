/**
 * What the HTTP handler reads of a request and what it answers, without tying it to the web `Request`
 * and `Response` classes: those are the public seam (`handle(Request): Response`), but building them costs
 * more than the rest of a small JSON-RPC exchange on Node 20 (web streams, an abort signal, header
 * objects). The node adapter hands the handler a light view of the node:http request and writes a
 * {@link JsonReply} straight out, and the events of an {@link SseReply} straight to the socket; `handle()`
 * converts at its edges.
 * @module
 */
import type { SseSink } from './sse-sink.js';

/** What the handler reads of request headers (a web `Headers` is one). */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Tells when the client went away. A request's `signal` does (`watchClient`), but the node adapter offers
 * a cheaper one: an `AbortController` plus an event listener per request show in the profile.
 */
export interface ClientWatch {
  readonly gone: boolean;
  /** Calls `listener` once when the client goes away; returns the function that stops watching. */
  onGone(listener: () => void): () => void;
}

/** The request's client watch: the adapter's own, else one over its `signal`. */
export function watchClient(request: HttpRequestLike): ClientWatch {
  return request.watch ?? watchSignal(request.signal);
}

/** A client watch over an abort signal. */
export function watchSignal(signal: AbortSignal): ClientWatch {
  return {
    get gone() {
      return signal.aborted;
    },
    onGone(listener) {
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

/** The parts of a request the handler reads: a web `Request` has them, and so has the adapter's view. */
export interface HttpRequestLike {
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  /** The URL's path, where the view knows it without parsing `url` (the node adapter's). */
  readonly path?: string;
  readonly headers: HeaderReader;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** The body as a stream (a web `Request`), when it was not read whole. */
  readonly body: ReadableStream<Uint8Array> | null;
  /** The body already read whole (the node adapter's small POSTs). */
  readonly wholeBody?: Uint8Array;
  /**
   * Reads the body into one buffer, rejecting with `BodyTooLargeError` past `maxBytes` (the node adapter's:
   * no promise or kept object per chunk, where a web stream costs both — a body in one-byte chunks
   * stalled the event loop). Without it, `body` is read.
   */
  readBody?(maxBytes: number): Promise<Uint8Array>;
  /** A cheaper way than `signal` to learn that the client went away (the node adapter's). */
  readonly watch?: ClientWatch;
  /** The peer's IP address, where the server knows it (the node adapter's). */
  readonly remoteAddress?: string;
}

/** The revision a request names in `MCP-Protocol-Version` (null when it names none). */
export const revisionOf = (request: HttpRequestLike) => request.headers.get('mcp-protocol-version');

/** `headers` with lower-case names: the object itself when they all are (the usual case). */
function lowerCased(headers: Record<string, string>): Record<string, string> {
  for (const name in headers) {
    if (name !== name.toLowerCase()) {
      const lower: Record<string, string> = {};
      for (const [key, value] of Object.entries(headers)) lower[key.toLowerCase()] = value;
      return lower;
    }
  }
  return headers;
}

/** Headers of a {@link JsonReply}, read like a web `Headers` (lower-case names). */
export class ReplyHeaders {
  readonly #values: Readonly<Record<string, string>>;

  constructor(values: Readonly<Record<string, string>>) {
    this.#values = values;
  }

  get(name: string): string | null {
    return this.#values[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return name.toLowerCase() in this.#values;
  }

  /** The headers as a plain object (lower-case names). */
  toObject(): Record<string, string> {
    return { ...this.#values };
  }

  /** The headers themselves, not to be changed (for the node adapter's `writeHead`: no copy). */
  get values(): Readonly<Record<string, string>> {
    return this.#values;
  }
}

/**
 * A whole HTTP answer (JSON, or no body) not yet made into a web `Response`. It reads like one
 * (`status`, `headers.get`, `text()`, `json()`), and `toResponse()` makes it one.
 */
export class JsonReply {
  readonly status: number;
  readonly headers: ReplyHeaders;
  /** The body text; null for none. */
  readonly bodyText: string | null;

  constructor(status: number, headers: Record<string, string>, body: string | null) {
    this.status = status;
    this.headers = new ReplyHeaders(lowerCased(headers));
    this.bodyText = body;
  }

  text(): Promise<string> {
    return Promise.resolve(this.bodyText ?? '');
  }

  json(): Promise<unknown> {
    return Promise.resolve(JSON.parse(this.bodyText ?? '') as unknown);
  }

  toResponse(): Response {
    return new Response(this.bodyText, { status: this.status, headers: this.headers.toObject() });
  }
}

/**
 * An SSE answer not yet made into a web `Response`: its status, headers and the sink its events are
 * written to. The node adapter writes the events straight to the socket (all of them with the headers in
 * one write when the answer is complete by then, the usual case for a tool that answers at once);
 * `toResponse()` makes it a `Response` whose body is the sink's web stream.
 */
export class SseReply {
  readonly status: number;
  readonly headers: ReplyHeaders;
  /** @internal The stream's events (the transports write them, the node adapter reads them). */
  readonly sink: SseSink;

  /** @internal Made by the transports. */
  constructor(sink: SseSink, headers: Record<string, string>, status = 200) {
    this.status = status;
    this.headers = new ReplyHeaders(lowerCased(headers));
    this.sink = sink;
  }

  /** The whole body, once the stream ends (as `Response.text()`). */
  text(): Promise<string> {
    return this.toResponse().text();
  }

  /** As `Response.json()` (an SSE body is no JSON: this rejects, as a `Response`'s would). */
  json(): Promise<unknown> {
    return this.toResponse().json() as Promise<unknown>;
  }

  toResponse(): Response {
    return new Response(this.sink.body, { status: this.status, headers: this.headers.toObject() });
  }
}

/** An answer: a whole one, an SSE stream, or a web `Response`. */
export type Reply = JsonReply | SseReply | Response;

/** The answer as a web `Response`. */
export function toResponse(reply: Reply): Response {
  return reply instanceof Response ? reply : reply.toResponse();
}

/** Whether a value a step returned is an answer (to send as is) rather than its result. */
export function isReply(value: unknown): value is Reply {
  return value instanceof JsonReply || value instanceof SseReply || value instanceof Response;
}
