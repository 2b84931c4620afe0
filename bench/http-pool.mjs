// A lean HTTP/1.1 keep-alive client for the load generator: raw sockets, one request in flight per
// connection, each request written with one socket write, responses framed by Content-Length or chunked
// encoding (or the connection's end). It does what a load generator needs and no more — no redirects, no
// 1xx, no pipelining — so that it costs the client a fraction of what node:http's client does (≈30 µs
// per call here against ≈60): on two shared cores, the client's CPU is CPU the server under test lacks.
import { connect } from 'node:net';

const CRLF_CRLF = Buffer.from('\r\n\r\n');

/** One keep-alive connection; `request` may be called again once the previous one settled. */
class Connection {
  constructor(url, onClose) {
    this.socket = connect(Number(url.port || 80), url.hostname);
    this.socket.setNoDelay(true);
    this.buffer = Buffer.alloc(0);
    this.waiting = undefined; // { resolve, reject } of the request in flight
    this.closed = false;
    this.socket.on('data', (chunk) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse(false);
    });
    this.socket.on('end', () => this.parse(true));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => {
      this.fail(new Error('the connection closed before the response ended'));
      onClose(this);
    });
  }

  request(text) {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(text);
    });
  }

  fail(error) {
    this.closed = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  /** Settles the request in flight once its whole response is in the buffer (`ended`: the peer closed). */
  parse(ended) {
    if (!this.waiting) return;
    const buffer = this.buffer;
    const headEnd = buffer.indexOf(CRLF_CRLF);
    if (headEnd === -1) return;
    const lines = buffer.toString('latin1', 0, headEnd).split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const headers = {};
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      headers[lines[i].slice(0, colon).toLowerCase()] = lines[i].slice(colon + 1).trim();
    }
    const framed = frame(buffer, headEnd + 4, headers, ended);
    if (!framed) return;
    this.buffer = buffer.subarray(framed.end);
    if (headers.connection === 'close') this.closed = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting.resolve({ status, headers, body: framed.body.toString('utf8') });
  }

  destroy() {
    this.closed = true;
    this.socket.destroy();
  }
}

/** The body starting at `start` and where the response ends, or undefined while it is incomplete. */
function frame(buffer, start, headers, ended) {
  if (headers['content-length'] !== undefined) {
    const end = start + Number(headers['content-length']);
    return buffer.length < end ? undefined : { body: buffer.subarray(start, end), end };
  }
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts = [];
    let at = start;
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
      const dataEnd = lineEnd + 2 + size;
      if (size === 0) {
        // The last chunk, then (no trailers) an empty line.
        const end = buffer.indexOf(CRLF_CRLF, lineEnd);
        return end === -1 ? undefined : { body: Buffer.concat(parts), end: end + 4 };
      }
      if (buffer.length < dataEnd + 2) return undefined;
      parts.push(buffer.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }
  // Neither: the body runs to the end of the connection.
  return ended ? { body: buffer.subarray(start), end: buffer.length } : undefined;
}

/** Up to `max` keep-alive connections to the origin of `url`; requests wait for a free one. */
export class HttpPool {
  constructor(url, max) {
    this.url = new URL(url);
    this.max = max;
    this.idle = [];
    this.all = new Set();
    this.queue = [];
  }

  /** A POST of `body` (a string) with `headers`; resolves { status, headers, body }. */
  async post(headers, body) {
    let text = `POST ${this.url.pathname}${this.url.search} HTTP/1.1\r\nhost: ${this.url.host}\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    text += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const connection = await this.acquire();
    try {
      return await connection.request(text);
    } finally {
      this.release(connection);
    }
  }

  acquire() {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.all.size < this.max) {
      const connection = new Connection(this.url, (closed) => this.forget(closed));
      this.all.add(connection);
      return connection;
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** A connection the server closed (its keep-alive timeout, say) is never handed out again. */
  forget(connection) {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
  }

  release(connection) {
    if (connection.closed) {
      connection.destroy();
      this.forget(connection);
      // A waiter gets a new connection in its place.
      const next = this.queue.shift();
      if (next) next(this.acquire());
      return;
    }
    const next = this.queue.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  destroy() {
    for (const connection of this.all) connection.destroy();
    this.all.clear();
    this.idle = [];
  }
}
