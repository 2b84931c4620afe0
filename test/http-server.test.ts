// The Streamable HTTP server on the wire: raw fetch against serveHttp on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import type { Server } from '../src/server/index.js';
import { ACCEPT, INIT, closeServedAfterEach, post, served, start } from './_http.js';
import { SseReader } from './_sse.js';

closeServedAfterEach();

/** Initializes a session; returns its id. */
async function open(url: string, version = '2025-11-25'): Promise<string> {
  const response = await post(url, INIT(version));
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
  const reader = new SseReader(response);
  expect(await reader.nextMessage()).toMatchObject({ id: 0, result: { protocolVersion: version } });
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId! },
  );
  expect(ack.status).toBe(202);
  return sessionId!;
}

describe('Streamable HTTP server', () => {
  it('initializes a session over SSE and serves requests that carry its id', async () => {
    const { url } = await start();
    const sid = await open(url);
    const response = await post(
      url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(response);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: '', retry: 1000 });
    expect(priming?.id).toBeTruthy();
    expect(await reader.nextMessage()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    expect(await reader.next()).toBeUndefined(); // the stream ends with the response
  });

  it('does not prime streams of a 2025-03-26 session', async () => {
    const { url } = await start();
    const sid = await open(url, '2025-03-26');
    const reader = new SseReader(
      await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sid }),
    );
    const first = await reader.next();
    expect(JSON.parse(first!.data)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers in one JSON body in JSON mode', async () => {
    const { url } = await start({ responseMode: 'json' });
    const init = await post(url, INIT());
    expect(init.headers.get('content-type')).toBe('application/json');
    const sid = init.headers.get('mcp-session-id')!;
    expect(await init.json()).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
    const list = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sid });
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
  });

  it('keeps nothing per request once answered, in JSON and SSE modes', async () => {
    for (const responseMode of ['json', 'sse'] as const) {
      const { url } = await start({ responseMode });
      const sid = (await post(url, INIT())).headers.get('mcp-session-id')!;
      await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const response = await post(
            url,
            {
              jsonrpc: '2.0',
              id: i + 1,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: String(i) } },
            },
            { 'mcp-session-id': sid },
          );
          expect(await response.text()).toContain(`"text":"${i}"`);
        }),
      );
      expect(served.handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
      await served.handle!.close();
      served.handle = undefined;
    }
  });

  it("never delivers one session's response to another, even with the same request ids", async () => {
    const { url } = await start({ responseMode: 'json' });
    const a = (await post(url, INIT())).headers.get('mcp-session-id')!;
    const b = (await post(url, INIT())).headers.get('mcp-session-id')!;
    const call = (sid: string, text: string) =>
      post(
        url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'slow', arguments: { steps: 1, ms: 20 } },
        },
        { 'mcp-session-id': sid },
      ).then(async (r): Promise<unknown[]> => [
        ((await r.json()) as { id: number }).id,
        text,
        (await post(
          url,
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text } } },
          { 'mcp-session-id': sid },
        ).then((x) => x.json())) as unknown,
      ]);
    const [fromA, fromB] = await Promise.all([call(a, 'for a'), call(b, 'for b')]);
    expect(fromA[2]).toMatchObject({ id: 2, result: { content: [{ text: 'for a' }] } });
    expect(fromB[2]).toMatchObject({ id: 2, result: { content: [{ text: 'for b' }] } });
  });

  it('requires a session id (400), knows ended sessions (404), and ends them on DELETE', async () => {
    const { url } = await start();
    const sid = await open(url);
    expect((await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    expect(
      (await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'nope' })).status,
    ).toBe(404);
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    expect(del.status).toBe(200);
    expect(
      (await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sid })).status,
    ).toBe(404);
    expect(served.handle!.handler.sessionCount).toBe(0);
  });

  it('refuses bad Accept (406), Content-Type (415), JSON (400 -32700), oversized bodies (413), and other methods (405)', async () => {
    const { url } = await start({ maxBodyBytes: 1000 });
    expect((await post(url, INIT(), { accept: 'application/json' })).status).toBe(406);
    expect((await post(url, INIT(), { 'content-type': 'text/plain' })).status).toBe(415);
    const parse = await post(url, '{"jsonrpc":');
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ error: { code: -32700 } });
    expect((await post(url, { ...INIT(), pad: 'x'.repeat(2000) })).status).toBe(413);
    const put = await fetch(url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    expect((await post(url, [INIT(), { jsonrpc: '2.0', id: 2, method: 'ping' }])).status).toBe(400);
  });

  it('refuses a million-deep body unparsed with 400 -32700, and serves the next request', async () => {
    const { url } = await start();
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const response = await post(url, deep);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the body is nested deeper than 1024 levels' },
    });
    await open(url);
  });

  it('refuses an unsupported MCP-Protocol-Version header with 400', async () => {
    const { url } = await start();
    const sid = await open(url);
    const response = await post(
      url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' },
    );
    expect(response.status).toBe(400);
  });

  it('refuses a foreign Host or Origin with 403 and accepts loopback ones', async () => {
    const { url } = await start();
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify(INIT());
        const req = request(
          url,
          { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    expect(await status({ host: 'evil.example.com', origin: 'http://evil.example.com' })).toBe(403);
    expect(await status({ origin: 'http://evil.example.com' })).toBe(403);
    expect(await status({ host: new URL(url).host, origin: `http://localhost:${new URL(url).port}` })).toBe(
      200,
    );
  });

  it('accepts a batch only from a 2025-03-26 session', async () => {
    const { url } = await start({ responseMode: 'json' });
    const old = await post(url, INIT('2025-03-26'));
    const oldSid = old.headers.get('mcp-session-id')!;
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ];
    expect(await (await post(url, batch, { 'mcp-session-id': oldSid })).json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: {} },
    ]);
    const latest = await post(url, INIT('2025-06-18'));
    expect((await post(url, batch, { 'mcp-session-id': latest.headers.get('mcp-session-id')! })).status).toBe(
      400,
    );
  });

  it('resumes a broken stream with Last-Event-ID and delivers the rest of the call', async () => {
    const { url } = await start();
    const sid = await open(url);
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'slow', arguments: { steps: 3, ms: 60 }, _meta: { progressToken: 'p' } },
    };
    const first = new SseReader(await post(url, call, { 'mcp-session-id': sid }));
    await first.next(); // priming
    const progress = await first.next();
    expect(JSON.parse(progress!.data)).toMatchObject({
      method: 'notifications/progress',
      params: { progress: 1 },
    });
    await first.cancel(); // the connection drops mid-call
    const resumed = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': progress!.id! },
    });
    expect(resumed.status).toBe(200);
    const reader = new SseReader(resumed);
    const messages = [];
    for (let m = await reader.nextMessage(); m; m = await reader.nextMessage()) messages.push(m);
    expect(messages.map((m) => (m.method as string | undefined) ?? `result ${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'result 7',
    ]);
  });

  it('lets a tool close its stream mid-call (SSE polling) and replays the rest on GET', async () => {
    const { url } = await start({ retryMs: 500 });
    const sid = await open(url);
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'reconnect', _meta: { progressToken: 1 } },
    };
    const reader = new SseReader(await post(url, call, { 'mcp-session-id': sid }));
    const events = [];
    for (let e = await reader.next(); e; e = await reader.next()) events.push(e);
    expect(events[0]).toMatchObject({ data: '', retry: 500 });
    expect(JSON.parse(events[1]!.data)).toMatchObject({ params: { message: 'before the break' } });
    expect(events.at(-1)).toMatchObject({ retry: 500 });
    const lastId = events.filter((e) => e.id).at(-1)!.id!;
    const resumed = new SseReader(
      await fetch(url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': lastId },
      }),
    );
    expect(await resumed.nextMessage()).toMatchObject({ params: { message: 'after the break' } });
    expect(await resumed.nextMessage()).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: { content: [{ type: 'text', text: 'reconnected' }] },
    });
  });

  it('answers an unknown Last-Event-ID with 400, not the 404 of an ended session, and the session goes on', async () => {
    const { url } = await start();
    const sid = await open(url);
    const other = await open(url);
    const theirs = new SseReader(
      await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': other }),
    );
    const foreign = (await theirs.next())!.id!; // the other session's priming event
    for (const lastEventId of ['no-such-event', foreign]) {
      const resumed = await fetch(url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': lastEventId },
      });
      expect(resumed.status).toBe(400);
      expect(await resumed.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: `Unknown Last-Event-ID: ${lastEventId}` },
      });
    }
    const ping = await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sid });
    expect(ping.status).toBe(200);
    expect(await new SseReader(ping).nextMessage()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('cancels the call when the client disconnects and no event store could replay it', async () => {
    const { url, server } = await start({ eventStore: false });
    const sid = await open(url);
    const reader = new SseReader(
      await post(
        url,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait_for_cancel' } },
        { 'mcp-session-id': sid },
      ),
    );
    await expect.poll(() => (server as Server & { waitingForCancel: number }).waitingForCancel).toBe(1);
    await reader.cancel();
    await expect
      .poll(async () => {
        const r = new SseReader(
          await post(
            url,
            { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'last_cancel' } },
            { 'mcp-session-id': sid },
          ),
        );
        return ((await r.nextMessage())?.result as { content: { text: string }[] }).content[0]!.text;
      })
      .toBe('The client disconnected');
  });

  it('sends unrelated notifications on the GET stream, one such stream at a time', async () => {
    const { url, server } = await start();
    const sid = await open(url);
    const get = () => fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
    const stream = await get();
    expect(stream.status).toBe(200);
    expect((await get()).status).toBe(409);
    const reader = new SseReader(stream);
    await reader.next(); // priming
    server.tool('late', {}, () => 'late');
    expect(await reader.nextMessage()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
  });

  it('routes an elicitation request on the call stream and its answer back to the call', async () => {
    const { url } = await start();
    const sid = await open(url);
    const reader = new SseReader(
      await post(
        url,
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask' } },
        { 'mcp-session-id': sid },
      ),
    );
    const ask = await reader.nextMessage();
    expect(ask).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const answer = await post(
      url,
      { jsonrpc: '2.0', id: ask!.id, result: { action: 'accept', content: { name: 'Ada' } } },
      { 'mcp-session-id': sid },
    );
    expect(answer.status).toBe(202);
    expect(await reader.nextMessage()).toMatchObject({
      id: 5,
      result: { content: [{ type: 'text', text: 'accept:Ada' }] },
    });
  });

  it('closes idle sessions and caps live ones', async () => {
    const { url } = await start({ sessionIdleTimeoutMs: 60_000, maxSessions: 2 });
    const a = await open(url);
    await open(url);
    expect((await post(url, INIT())).status).toBe(503);
    await served.handle!.handler.sweep(Date.now() + 120_000);
    expect(served.handle!.handler.sessionCount).toBe(0);
    expect((await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': a })).status).toBe(
      404,
    );
  });

  it('serves stateless requests without a handshake and refuses GET', async () => {
    const { url } = await start({ stateless: true, responseMode: 'json' });
    const list = await post(
      url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(await list.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'x' }] },
    });
    const init = await post(url, INIT());
    expect(await init.json()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect(served.handle!.handler.sessionCount).toBe(0);
  });
});

describe('stateless handshake-era requests in JSON mode (one exchange each)', () => {
  const v = { 'mcp-protocol-version': '2025-06-18' };

  it('answers JSON-RPC errors with status 200, notifications with 202, and keeps nothing', async () => {
    const { url } = await start({ stateless: true, responseMode: 'json' });
    const unknown = await post(
      url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope', arguments: {} } },
      v,
    );
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    const missing = await post(url, { jsonrpc: '2.0', id: 8, method: 'no/such/method' }, v);
    expect(missing.status).toBe(200);
    expect(await missing.json()).toMatchObject({ id: 8, error: { code: -32601 } });
    const failed = await post(
      url,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'throws', arguments: {} } },
      v,
    );
    expect(await failed.json()).toMatchObject({ id: 9, result: { isError: true } });
    const note = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, v);
    expect(note.status).toBe(202);
    // Without a version header the request is taken as 2025-03-26 (the spec's default).
    const plain = await post(url, { jsonrpc: '2.0', id: 10, method: 'tools/list' });
    expect(await plain.json()).toMatchObject({ id: 10, result: { tools: expect.any(Array) } });
    expect(served.handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
  });

  it('cancels the call when the client goes away', async () => {
    const { url, server } = await start({ stateless: true, responseMode: 'json' });
    const aborted = new AbortController();
    const call = fetch(url, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', ...v },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait_for_cancel', arguments: {} },
      }),
      signal: aborted.signal,
    });
    await expect.poll(() => (server as Server & { waitingForCancel: number }).waitingForCancel).toBe(1);
    aborted.abort();
    await expect(call).rejects.toThrow();
    await expect
      .poll(() => (server as Server & { lastCancelReason?: string }).lastCancelReason)
      .toContain('closed the connection');
    await expect.poll(() => served.handle!.handler.load.pendingRequests).toBe(0);
  });
});

describe('legacy HTTP+SSE', () => {
  it('names the POST endpoint, accepts messages with 202, and answers on the stream', async () => {
    const { url } = await start();
    const base = new URL(url);
    const reader = new SseReader(
      await fetch(new URL('/sse', base), { headers: { accept: 'text/event-stream' } }),
    );
    const endpoint = await reader.next();
    expect(endpoint).toMatchObject({
      event: 'endpoint',
      data: expect.stringMatching(/^\/messages\?sessionId=/),
    });
    const target = new URL(endpoint!.data, base);
    const sent = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(INIT('2024-11-05')),
    });
    expect(sent.status).toBe(202);
    const message = await reader.next();
    expect(message?.event).toBe('message');
    expect(JSON.parse(message!.data)).toMatchObject({ id: 0, result: { protocolVersion: '2024-11-05' } });
    expect(
      (
        await fetch(new URL('/messages?sessionId=nope', base), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(404);
  });
});
