/**
 * How the node adapter reads a node:http request: a light view of it for the handler's native path
 * (headers read in place, a small body read whole), and the watch that tells when its client went away.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ClientWatch, HeaderReader, HttpRequestLike } from './http-exchange.js';
import { readNodeBody } from './node-body.js';

/**
 * The path of a request target made only of characters `new URL` leaves as they are (letters, digits,
 * `-`, `_`, `/`; no dot segments, no escapes), without parsing it; undefined for any other target.
 */
function plainPath(target: string | undefined): string | undefined {
  if (target === undefined || !/^\/[\w\-/]*(?:\?|$)/.test(target)) return undefined;
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * A Host value (RFC 9110 §7.2: `uri-host [ ":" port ]`): an IP literal in brackets, or a reg-name / IPv4
 * address; the port, if any, digits only. Linear: no quantifier nests another.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::([0-9]*))?$/;

/** The last Host value found well-formed: the next request on a connection names it again. */
let wellFormedHost: string | undefined;

/**
 * Why the handler cannot serve a node:http request, before it reads anything else: a request target that
 * is not a path (`OPTIONS *`, an absolute-form target — a request meant for a proxy), or a Host header
 * that is repeated or names no host (RFC 9112 §3.2: 400). Undefined when it may proceed. A web `Request`
 * always has a valid URL, so only the node adapter asks.
 */
export function requestTargetProblem(req: IncomingMessage): string | undefined {
  const target = req.url ?? '/';
  if (target.charCodeAt(0) !== 0x2f /* / */) {
    return target === '*'
      ? 'Bad Request: the request target must be a path; this server answers no `*` request'
      : 'Bad Request: the request target must be a path (absolute-form targets are for proxies)';
  }
  // node:http keeps the first of several Host lines; a proxy in front may have read another one.
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return 'Bad Request: the Host header is repeated';
  const host = req.headers.host;
  if (host === undefined || host === wellFormedHost) return undefined;
  const match = HOST.exec(host);
  const port = match?.[1];
  if (!match || (port !== undefined && port.length > 0 && !(port.length <= 5 && Number(port) <= 65535)))
    return `Bad Request: the Host header names no host: ${JSON.stringify(host.slice(0, 100))}`;
  wellFormedHost = host;
  return undefined;
}

/** node:http's parsed headers, read like a web `Headers`. */
class NodeHeaders implements HeaderReader {
  readonly #raw: IncomingMessage['headers'];

  constructor(raw: IncomingMessage['headers']) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

/** A node:http request as the handler reads it, without a web `Request` (headers read in place). */
export class NodeRequestView implements HttpRequestLike {
  readonly method: string;
  readonly path: string | undefined;
  readonly headers: HeaderReader;
  readonly wholeBody: Uint8Array | undefined;
  readonly #req: MaybeParsed;
  readonly #gone: ClientGone;

  constructor(req: MaybeParsed, gone: ClientGone, whole: Uint8Array | undefined) {
    this.#gone = gone;
    this.#req = req;
    this.method = req.method ?? 'GET';
    this.path = plainPath(req.url);
    this.headers = new NodeHeaders(req.headers);
    this.wholeBody = req.body !== undefined ? new TextEncoder().encode(JSON.stringify(req.body)) : whole;
  }

  /** The absolute URL, made when read (the path is enough for most requests). */
  get url(): string {
    return `http://${this.#req.headers.host ?? 'localhost'}${this.#req.url ?? '/'}`;
  }

  get signal(): AbortSignal {
    return this.#gone.signal;
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  get watch(): ClientWatch {
    return this.#gone;
  }

  /** Reads the body into one buffer, when it was not read whole (see `readNodeBody`). */
  readBody(maxBytes: number): Promise<Uint8Array> {
    return readNodeBody(this.#req, maxBytes);
  }

  /** The body as a web stream, when it was not read whole (large or undeclared POSTs). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.wholeBody || this.method === 'GET' || this.method === 'HEAD' || this.method === 'DELETE')
      return null;
    return Readable.toWeb(this.#req) as ReadableStream<Uint8Array>;
  }
}

/**
 * Aborted when the client goes away before its response is finished. The controller is created when
 * someone asks for the signal (many exchanges never do).
 */
export class ClientGone implements ClientWatch {
  #controller: AbortController | undefined;
  #listeners: Array<() => void> | undefined;
  #gone = false;

  constructor(res: ServerResponse) {
    res.on('close', () => {
      if (res.writableFinished) return;
      this.#gone = true;
      this.#controller?.abort();
      const listeners = this.#listeners ?? [];
      this.#listeners = undefined;
      for (const listener of listeners) listener();
    });
  }

  get gone(): boolean {
    return this.#gone;
  }

  onGone(listener: () => void): () => void {
    if (this.#gone) return () => {};
    (this.#listeners ??= []).push(listener);
    return () => {
      const at = this.#listeners?.indexOf(listener) ?? -1;
      if (at !== -1) this.#listeners?.splice(at, 1);
    };
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#gone) this.#controller.abort();
    }
    return this.#controller.signal;
  }
}

/** `req.body` as Express' JSON middleware leaves it, when it ran first. */
export type MaybeParsed = IncomingMessage & { body?: unknown };

/**
 * Bodies up to this size, when `Content-Length` declares it, are read before the `Request` is built and
 * given to it whole: cheaper than a web stream over the node stream, for the small JSON-RPC POSTs that
 * are nearly all of them. Larger or undeclared bodies stream, so the handler's size limit reads no more
 * than it allows.
 */
const WHOLE_BODY_BYTES = 64 * 1024;

const NO_BODY = new Uint8Array(0);

/**
 * The whole body of a POST that declares a small `Content-Length` (see `WHOLE_BODY_BYTES`), else
 * undefined. Called a microtask after the request event: a small body that came in the same read as the
 * headers has been parsed by then (`req.complete`) and is taken as is, with no listeners.
 */
export function smallBody(req: MaybeParsed): Promise<Uint8Array> | Uint8Array | undefined {
  if (req.body !== undefined || req.method !== 'POST') return undefined;
  const declared = Number(req.headers['content-length']);
  if (!(declared >= 0 && declared <= WHOLE_BODY_BYTES)) return undefined;
  if (req.complete && req.readableLength === declared) {
    const whole = req.read() as Buffer | null;
    return whole ?? NO_BODY;
  }
  // Events rather than `for await`: no async iterator per request.
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
