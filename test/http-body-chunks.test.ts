// A POST body that comes in many small pieces costs the server work per byte, not per piece: the node
// adapter reads a streamed body into one buffer with a plain `data` listener. Before, each piece went
// through a web stream — a promise and a kept chunk object per piece: 64 KiB in one-byte chunks stalled
// the event loop ≈120 ms, and the 4 MiB a body may hold would have kept 4 million chunk objects. Counted
// here as promises created while the request is served (a count of work, not a time): 128,800 before for
// 16,000 pieces, 29 now.
import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { ACCEPT, closeServedAfterEach, open, raw, start } from './_http.js';

closeServedAfterEach();

const call = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
  });

/** A request head for `url`'s path, with `headers`. */
function head(url: string, headers: Record<string, string>): string {
  const u = new URL(url);
  let text = `POST ${u.pathname} HTTP/1.1\r\nhost: ${u.host}\r\nconnection: close\r\n`;
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return `${text}\r\n`;
}

/** `body` in chunked framing, `size` bytes a chunk. */
function chunked(body: string, size: number): string {
  let out = '';
  for (let at = 0; at < body.length; at += size) {
    const part = body.slice(at, at + size);
    out += `${part.length.toString(16)}\r\n${part}\r\n`;
  }
  return `${out}0\r\n\r\n`;
}

/** How many promises are created while `work` runs (all of them, in this process). */
async function promisesDuring<T>(work: () => Promise<T>): Promise<{ value: T; promises: number }> {
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++;
    },
  });
  hook.enable();
  try {
    const value = await work();
    return { value, promises };
  } finally {
    hook.disable();
  }
}

describe('a POST body in many small pieces', () => {
  it('is read with work per byte, not a promise per piece (16,000 one-byte chunks)', async () => {
    const { url, handle } = await start({ responseMode: 'json' });
    const session = await open(url);
    const text = 'b'.repeat(16_000);
    const request =
      head(url, {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': session,
        'transfer-encoding': 'chunked',
      }) + chunked(call(text), 1);
    const { value: answer, promises } = await promisesDuring(() => raw(handle.port, request));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text }] } });
    expect(promises, `${promises} promises for one request`).toBeLessThan(1000);
  });

  it('reads a declared body past the whole-read size in one buffer, and refuses a chunked one past the cap', async () => {
    const { url, handle } = await start({ responseMode: 'json', maxBodyBytes: 200_000 });
    const session = await open(url);
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session };
    const text = 'c'.repeat(150_000);
    const body = call(text);
    const declared = await raw(
      handle.port,
      head(url, { ...headers, 'content-length': String(body.length) }) + body,
    );
    expect(declared.status).toBe(200);
    expect(JSON.parse(declared.body)).toMatchObject({ id: 7, result: { content: [{ text }] } });

    const over = call('d'.repeat(250_000));
    const refused = await raw(
      handle.port,
      head(url, { ...headers, 'transfer-encoding': 'chunked' }) + chunked(over, 1000),
    );
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32600 } });
  });
});
