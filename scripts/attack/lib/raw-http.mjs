// HTTP/1.1 at the byte level, for requests no well-behaved client sends: lying Content-Length, endless
// chunks, headers a byte at a time, a reader that never reads. Every exchange has a deadline.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const HEAD_END = '\r\n\r\n';

/** The request head (a POST to the URL's path by default) with `headers` and CRLFs. */
export function head(url, headers = {}, { method = 'POST', target } = {}) {
  const u = new URL(url);
  let text = `${method} ${target ?? u.pathname + u.search} HTTP/1.1\r\nhost: ${u.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return `${text}\r\n`;
}

/** Parses the status line and headers of `text` (up to the blank line), or undefined while incomplete. */
export function parseHead(text) {
  const end = text.indexOf(HEAD_END);
  if (end === -1) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.slice(9, 12)), headers, bodyStart: end + 4 };
}

/** The body as text, its chunked framing removed. */
function bodyText(raw, headers) {
  if (!headers['transfer-encoding']?.includes('chunked')) return Buffer.from(raw, 'latin1').toString('utf8');
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(raw.slice(at, lineEnd), 16);
    if (!(size > 0)) break;
    parts.push(raw.slice(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.from(parts.join(''), 'latin1').toString('utf8');
}

/**
 * Opens a connection, writes `parts` (strings or Buffers) with `gapMs` between them (stopping early once
 * the server answered or closed), and reads until the answer is whole (by Content-Length or chunks),
 * `untilBody` bytes of its body came, the server closes, or `timeoutMs` passes. Resolves { status, headers, body, closed, timedOut,
 * written, answeredAfterMs } — `closed`: the server ended or reset the connection.
 */
export async function exchange(url, parts, { gapMs = 0, timeoutMs = 10_000, untilBody = Infinity } = {}) {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.setNoDelay(true);
  const started = performance.now();
  let received = '';
  let closed = false;
  let answeredAt;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const check = () => {
    const parsed = parseHead(received);
    if (!parsed) return;
    answeredAt ??= performance.now() - started;
    const bodyBytes = received.length - parsed.bodyStart; // latin1: one character per byte
    const length = parsed.headers['content-length'];
    if (bodyBytes >= untilBody || (length !== undefined && bodyBytes >= Number(length))) done();
    else if (parsed.headers['transfer-encoding']?.includes('chunked') && received.endsWith('0\r\n\r\n'))
      done();
  };
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    received += chunk;
    check();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    done();
  });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const timer = setTimeout(done, timeoutMs);
  let written = 0;
  const writing = (async () => {
    for (const part of parts) {
      if (closed || answeredAt !== undefined || socket.destroyed) break;
      const ok = socket.write(part);
      written += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      if (!ok) await Promise.race([new Promise((r) => socket.once('drain', r)), finished]);
      if (gapMs > 0) await Promise.race([sleep(gapMs), finished]);
    }
  })();
  await Promise.race([finished, writing.then(() => finished)]);
  clearTimeout(timer);
  const timedOut = !closed && answeredAt === undefined;
  socket.destroy();
  const parsed = parseHead(received);
  return {
    status: parsed?.status,
    headers: parsed?.headers ?? {},
    body: parsed ? bodyText(received.slice(parsed.bodyStart), parsed.headers) : '',
    closed,
    timedOut,
    written,
    answeredAfterMs: answeredAt,
  };
}
