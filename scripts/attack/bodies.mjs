// Oversized and lying bodies over HTTP: a body over the 4 MiB cap (declared and undeclared), chunked floods,
// Content-Length that says less or more than is sent, both framings at once, a body in one-byte chunks.
// The server must answer with the right status (413, 400) without reading or holding what it refuses.
import { openSession } from './lib/http.mjs';
import { exchange, head } from './lib/raw-http.mjs';

const MiB = 1024 * 1024;
const BASE = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
/** The headers of a POST in a fresh session of the target. */
const sessionHeaders = async (url) => ({ ...BASE, 'mcp-session-id': await openSession(url) });
const echo = (id, text = 'hi') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

/** `count` parts of `size` bytes of a JSON string's inside (so the body stays one plausible JSON text). */
const filler = (size, count) => Array.from({ length: count }, () => Buffer.alloc(size, 0x61));
const chunk = (bytes) =>
  Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);

/** Checks that `res` is `status` with a JSON-RPC error body (or, for `closeOk`, a closed connection). */
function expectStatus(ctx, res, status, what, { closeOk = false } = {}) {
  ctx.tries++;
  if (closeOk && res.status === undefined && res.closed) return;
  ctx.check(
    res.status === status,
    `${what}: expected ${status}, got ${res.status ?? (res.timedOut ? 'no answer (timed out)' : 'a closed connection')}`,
  );
}

export default [
  {
    name: 'oversized',
    title:
      'POST bodies over the 4 MiB cap: declared (5 MiB), undeclared (chunked), and a 10^20 Content-Length',
    async run(ctx) {
      const url = ctx.target.url;
      const HEADERS = await sessionHeaders(url);
      const rounds = ctx.quick ? 2 : 8;
      for (let i = 0; i < rounds; i++) {
        const prefix = Buffer.from(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"',
        );
        const declared = await exchange(
          url,
          [head(url, { ...HEADERS, 'content-length': String(5 * MiB) }), prefix, ...filler(MiB, 5)],
          { timeoutMs: 15_000 },
        );
        expectStatus(ctx, declared, 413, 'a declared 5 MiB body');
        const chunked = await exchange(
          url,
          [
            head(url, { ...HEADERS, 'transfer-encoding': 'chunked' }),
            chunk(prefix),
            ...filler(MiB, 5).map(chunk),
          ],
          { timeoutMs: 15_000 },
        );
        expectStatus(ctx, chunked, 413, 'a chunked 5 MiB body');
        const huge = await exchange(
          url,
          [head(url, { ...HEADERS, 'content-length': '100000000000000000000' }), '{}'],
          { timeoutMs: 10_000 },
        );
        ctx.tries++;
        ctx.check(
          [400, 413].includes(huge.status),
          `Content-Length 10^20: expected 413 or 400, got ${huge.status ?? 'none'}`,
        );
      }
    },
  },
  {
    name: 'chunked-flood',
    title: 'an endless chunked body (64 MiB offered in 64 KiB chunks): refused at the cap, never buffered',
    async run(ctx) {
      const url = ctx.target.url;
      const HEADERS = await sessionHeaders(url);
      const rounds = ctx.quick ? 2 : 6;
      for (let i = 0; i < rounds; i++) {
        const parts = [
          head(url, { ...HEADERS, 'transfer-encoding': 'chunked' }),
          ...filler(64 * 1024, 1024).map(chunk),
        ];
        const res = await exchange(url, parts, { timeoutMs: 20_000 });
        expectStatus(ctx, res, 413, 'a 64 MiB chunked flood', { closeOk: true });
        ctx.check(
          res.written < 16 * MiB,
          `the server read ${(res.written / MiB).toFixed(0)} MiB of a flood it had to refuse at 4 MiB`,
        );
      }
    },
  },
  {
    name: 'length-lies',
    title:
      'Content-Length that lies: more than sent (the rest never comes), less than sent, both framings at once',
    async run(ctx) {
      const url = ctx.target.url;
      const HEADERS = await sessionHeaders(url);
      const body = echo(1);
      // Says 1000, sends the body (shorter) and stops: the server waits for the rest, others must not.
      const held = Array.from({ length: ctx.quick ? 20 : 100 }, () =>
        exchange(url, [head(url, { ...HEADERS, 'content-length': '1000' }), body], {
          timeoutMs: ctx.quick ? 2000 : 5000,
        }),
      );
      // Says 10, sends the whole body: the first 10 bytes are not JSON (400, -32700); the rest is garbage.
      for (let i = 0; i < (ctx.quick ? 20 : 100); i++) {
        const res = await exchange(url, [head(url, { ...HEADERS, 'content-length': '10' }) + body + body], {
          timeoutMs: 5000,
        });
        expectStatus(ctx, res, 400, 'Content-Length 10 for a longer body');
        ctx.check(
          !res.body || res.body.includes('-32700'),
          `Content-Length 10: not a parse error: ${res.body.slice(0, 100)}`,
        );
      }
      // Both Content-Length and chunked (request smuggling): refused.
      for (let i = 0; i < (ctx.quick ? 10 : 50); i++) {
        const smuggle = `${head(url, { ...HEADERS, 'content-length': String(body.length), 'transfer-encoding': 'chunked' })}${body}`;
        const res = await exchange(url, [smuggle], { timeoutMs: 5000 });
        expectStatus(ctx, res, 400, 'Content-Length with Transfer-Encoding', { closeOk: true });
      }
      const waited = await Promise.all(held);
      ctx.tries += waited.length;
      const answered = waited.filter((r) => r.status !== undefined);
      ctx.check(
        answered.every((r) => r.status >= 400),
        `a short body was answered ${answered[0]?.status}`,
      );
      ctx.note(
        `short bodies: ${answered.length} answered, ${waited.filter((r) => r.closed && r.status === undefined).length} closed, ${waited.filter((r) => r.timedOut).length} still waiting when the attacker gave up`,
      );
    },
  },
  {
    name: 'one-byte-chunks',
    title: 'a good call whose body comes in one-byte chunks (and 64 KiB of text in 1-byte chunks)',
    async run(ctx) {
      const url = ctx.target.url;
      const HEADERS = await sessionHeaders(url);
      const rounds = ctx.quick ? 2 : 5;
      for (let i = 0; i < rounds; i++) {
        const text = 'b'.repeat(64 * 1024);
        const body = Buffer.from(echo(i + 1, text));
        const parts = [head(url, { ...HEADERS, 'transfer-encoding': 'chunked' })];
        for (const byte of body) parts.push(chunk(Buffer.of(byte)));
        parts.push('0\r\n\r\n');
        const res = await exchange(
          url,
          [Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))],
          { timeoutMs: 20_000 },
        );
        expectStatus(ctx, res, 200, 'a body in one-byte chunks');
        ctx.check(res.body.includes(text), `one-byte chunks: the echo did not come back whole`);
      }
    },
  },
];
