/**
 * The response {@link nodeFetch} gives: the members of a `Response` that the transports read (status,
 * headers, `ok`, `body`, `text`, `json`, `arrayBuffer`, `clone`), over Node's incoming message.
 *
 * Why not a web `Response` over a web stream: Node 20 makes every web stream transferable as it is made,
 * and with the `Response` and its body that was ≈15% of a gateway's CPU per call relayed to an HTTP
 * upstream. A JSON answer read with `text()` makes no web stream here; `body` makes one on first use (an SSE
 * stream is read through it), and `clone()` makes a real `Response` and tees it.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** At most so many bytes of a body: what was read, whether that was all of it, how many bytes came. */
export interface BodyPart {
  bytes: Uint8Array;
  /** False: the body had more than the limit; the rest was not read (the connection is dropped). */
  complete: boolean;
  /** Bytes received (the limit, or a little more, when the body was cut short). */
  received: number;
}

export class NodeResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = 'basic';
  /** The body still to read; undefined for a response without one. */
  readonly #message: IncomingMessage | undefined;
  /** The web stream over the body, once `body` was read. */
  #web: ReadableStream<Uint8Array> | undefined;
  /** A real `Response` once `clone()` asked for one: everything goes through it from then on. */
  #real: Response | undefined;
  #used = false;

  /** `withBody` false: a response without a body (a 204, an answer to HEAD), its message read already. */
  constructor(message: IncomingMessage, withBody: boolean, url: URL, redirected: boolean) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status <= 299;
    this.url = url.href;
    this.redirected = redirected;
    this.#message = withBody ? message : undefined;
    const headers = new Headers();
    for (const [name, value] of Object.entries(message.headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const each of value) headers.append(name, each);
      else headers.append(name, value);
    }
    this.headers = headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#real) return this.#real.body;
    if (!this.#message) return null;
    this.#web ??= Readable.toWeb(this.#message) as unknown as ReadableStream<Uint8Array>;
    return this.#web;
  }

  get bodyUsed(): boolean {
    return this.#real ? this.#real.bodyUsed : this.#used;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  /**
   * At most `limit` bytes of the body, read from the message itself; past them the message is destroyed
   * (nothing more is read). Undefined when a web stream or a clone has taken the body over.
   */
  async readUpTo(limit: number): Promise<BodyPart | undefined> {
    if (this.#real || this.#web) return undefined;
    return this.#readMessage(limit);
  }

  clone(): Response {
    this.#real ??= new Response(this.body, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
    return this.#real.clone();
  }

  /** The whole body, read once (from the message itself unless a web stream or a clone took it over). */
  async #bytes(): Promise<Uint8Array> {
    if (this.#real) return new Uint8Array(await this.#real.arrayBuffer());
    if (this.#web) return new Uint8Array(await new Response(this.#web).arrayBuffer());
    return (await this.#readMessage(Infinity)).bytes;
  }

  /** At most `limit` bytes of the message, read once; past them the message is destroyed. */
  async #readMessage(limit: number): Promise<BodyPart> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    const message = this.#message;
    if (!message) return { bytes: new Uint8Array(0), complete: true, received: 0 };
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of message) {
      const buffer = chunk as Buffer;
      received += buffer.byteLength;
      if (received > limit) {
        message.destroy();
        return { bytes: Buffer.concat(chunks), complete: false, received };
      }
      chunks.push(buffer);
    }
    return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), complete: true, received };
  }
}
