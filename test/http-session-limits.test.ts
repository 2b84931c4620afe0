// A flood of unauthenticated sessions cannot lock new clients out: a session never used after its
// `initialize` ends after `handshakeTimeoutMs`, one client holds at most `maxSessionsPerClient` sessions
// and stateless-era listen streams, and listen streams are capped like sessions. Small configured values
// and explicit sweeps (or fake timers), no sleeps. "Clients" are told apart by a test header through the
// `clientAddress` option (every test client is on loopback, which is not counted by default).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Server } from '../src/server/index.js';
import { StreamableHttpHandler } from '../src/transports/http/index.js';
import { INIT, closeServedAfterEach, open, post, served, start } from './_http.js';

closeServedAfterEach();

const byHeader = {
  clientAddress: (request: { headers: { get(name: string): string | null } }) =>
    request.headers.get('x-test-client') ?? undefined,
};
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const listen = (url: string, id: number, client: string) =>
  post(
    url,
    {
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: META },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen', 'x-test-client': client },
  );

/** Sends `initialize` only (never `notifications/initialized`); returns the session id. */
async function initializeOnly(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await post(url, INIT(), headers);
  expect(response.status).toBe(200);
  await response.body?.cancel();
  return response.headers.get('mcp-session-id')!;
}

describe('sessions never used after initialize', () => {
  it('end after handshakeTimeoutMs; sessions that went on stay', async () => {
    const { url, handle } = await start({ handshakeTimeoutMs: 5_000, responseMode: 'json' });
    const idle = [await initializeOnly(url), await initializeOnly(url)];
    const acknowledged = await open(url); // sent notifications/initialized
    const used = await initializeOnly(url);
    expect((await post(url, ping, { 'mcp-session-id': used })).status).toBe(200); // a second request
    expect(handle.handler.sessionCount).toBe(4);
    await handle.handler.sweep(Date.now() + 4_000);
    expect(handle.handler.sessionCount).toBe(4); // not yet
    await handle.handler.sweep(Date.now() + 6_000);
    expect(handle.handler.sessionCount).toBe(2);
    for (const sid of idle) expect((await post(url, ping, { 'mcp-session-id': sid })).status).toBe(404);
    for (const sid of [acknowledged, used])
      expect((await post(url, ping, { 'mcp-session-id': sid })).status).toBe(200);
  });

  it('cannot lock new clients out for longer than handshakeTimeoutMs', async () => {
    const { url, handle } = await start({ maxSessions: 50, handshakeTimeoutMs: 2_000, responseMode: 'json' });
    for (let i = 0; i < 50; i++) await initializeOnly(url);
    const refused = await post(url, INIT());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    await handle.handler.sweep(Date.now() + 2_500);
    expect(handle.handler.sessionCount).toBe(0);
    await open(url); // a new client gets in
  });

  it('are swept by the handler on its own, within the timeout and a sweep interval', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const server = new Server({ name: 'limits', version: '1' });
    const handler = new StreamableHttpHandler(server, { handshakeTimeoutMs: 10_000, responseMode: 'json' });
    try {
      const request = new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          host: 'localhost',
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify(INIT()),
      });
      expect((await handler.handle(request)).status).toBe(200);
      expect(handler.sessionCount).toBe(1);
      await vi.advanceTimersByTimeAsync(9_000);
      expect(handler.sessionCount).toBe(1);
      await vi.advanceTimersByTimeAsync(6_000); // the timeout, plus at most half of it to the next sweep
      expect(handler.sessionCount).toBe(0);
    } finally {
      await handler.close();
      vi.useRealTimers();
    }
  });
});

describe('sessions per client', () => {
  afterEach(() => vi.useRealTimers());

  it('refuses a client its share plus one with 429 and -31429; other clients go on', async () => {
    const { url } = await start({
      maxSessionsPerClient: 2,
      handshakeTimeoutMs: 7_000,
      responseMode: 'json',
      ...byHeader,
    });
    const a = { 'x-test-client': '203.0.113.7' };
    const first = await initializeOnly(url, a);
    await initializeOnly(url, a);
    const refused = await post(url, INIT(), a);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -31429,
        message: 'Too Many Requests: this client holds 2 sessions or listen streams already',
        data: { retryAfterMs: 7_000 },
      },
    });
    // An IPv6 client counts by its /64: another address in it is the same client.
    const v6 = { 'x-test-client': '2001:db8:1:2::1' };
    await initializeOnly(url, v6);
    await initializeOnly(url, { 'x-test-client': '2001:0db8:0001:0002:ffff::9' });
    expect((await post(url, INIT(), { 'x-test-client': '2001:db8:1:2:abcd::2' })).status).toBe(429);
    expect((await post(url, INIT(), { 'x-test-client': '2001:db8:1:3::1' })).status).toBe(200);
    // Ending a session gives its slot back.
    expect((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': first } })).status).toBe(200);
    expect((await post(url, INIT(), a)).status).toBe(200);
  });

  it('counts legacy HTTP+SSE streams too', async () => {
    const { url } = await start({ maxSessionsPerClient: 1, ...byHeader });
    const sse = (client: string) =>
      fetch(new URL('/sse', url), { headers: { accept: 'text/event-stream', 'x-test-client': client } });
    const first = await sse('192.0.2.1');
    expect(first.status).toBe(200);
    expect((await sse('192.0.2.1')).status).toBe(429);
    const other = await sse('192.0.2.2');
    expect(other.status).toBe(200);
    await first.body?.cancel();
    await other.body?.cancel();
  });

  it('does not count loopback peers by default (this machine, or a proxy in front)', async () => {
    const { url, handle } = await start({ maxSessionsPerClient: 1, responseMode: 'json' });
    await open(url);
    await open(url);
    expect(handle.handler.sessionCount).toBe(2);
  });
});

describe('subscriptions/listen streams', () => {
  it('are capped per client and in all, like sessions', async () => {
    const { url } = await start({ maxSessionsPerClient: 1, maxSessions: 2, ...byHeader });
    const a = await listen(url, 1, '198.51.100.1');
    expect(a.status).toBe(200);
    const again = await listen(url, 2, '198.51.100.1');
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -31429 } });
    const b = await listen(url, 3, '198.51.100.2');
    expect(b.status).toBe(200);
    const full = await listen(url, 4, '198.51.100.3');
    expect(full.status).toBe(503);
    expect(await full.json()).toMatchObject({
      id: 4,
      error: { code: -32603, message: /too many listen streams/ },
    });
    // Closing a stream frees its place and its client's slot.
    await a.body?.cancel();
    await expect
      .poll(async () => {
        const retry = await listen(url, 5, '198.51.100.1');
        await retry.body?.cancel();
        return retry.status;
      })
      .toBe(200);
    await b.body?.cancel();
    await expect.poll(() => served.handle!.handler.load.streams).toBe(0);
  });
});
