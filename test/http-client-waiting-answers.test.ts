// A Streamable HTTP client answering many of the server's requests at once: 64 POSTs of answers (or
// notifications) are sent at a time and the rest wait in line for them, so every answer reaches the server
// (past 64, the others were refused and the server's requests hung until its own timeout). The line is
// bounded: a server that never accepts the POSTs costs the client at most 1,024 of them and 16 MiB; an
// answer past the bound reaches the server as a -32603 error answer saying so.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalErrorCode } from '../src/protocol/errors.js';
import type { CreateMessageParams, CreateMessageResult } from '../src/protocol/index.js';
import { Server, text } from '../src/server/index.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { MAX_NOTICES_WAITING, NOTICE_TIMEOUT_MS } from '../src/transports/http-client/waiting-posts.js';
import { serveHttp } from '../src/transports/http/index.js';
import { closeAll, connectClient, listen, sseHead, track, until } from './_http-client.js';

afterEach(closeAll);

/** What may wait in line for a POST (`MAX_NOTICES_QUEUED`, `MAX_QUEUED_NOTICE_BYTES`). */
const MAX_NOTICES_QUEUED = 1024;
const MAX_QUEUED_NOTICE_BYTES = 16 * 1024 * 1024;

const QUESTIONS = 150;
const question: CreateMessageParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'q'.repeat(10 * 1024) } }],
  maxTokens: 5,
};
const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'pinging', version: '1.0.0' },
};
const reply: CreateMessageResult = { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } };

describe('StreamableHttpClientTransport, answering many of the server’s questions at once', () => {
  it('gets every answer to the server, 64 POSTs at a time', async () => {
    // A toolwire server whose tool asks 150 sampling questions of 10 KiB at once (on its call's stream).
    const server = new Server({ name: 'asking', version: '1.0.0' });
    let settled = 0;
    const outcomes: Array<'ok' | number> = [];
    server.tool('ask', {}, async (_args, ctx) => {
      const asked = Array.from({ length: QUESTIONS }, () =>
        ctx.sample(question).then(
          () => outcomes.push('ok'),
          (error: { code?: number }) => outcomes.push(error.code ?? 0),
        ),
      );
      for (const one of asked) void one.finally(() => (settled += 1));
      await Promise.all(asked);
      return text('asked');
    });
    const handle = track(await serveHttp(server, { port: 0 }));
    // The client holds what 1 MiB allows (≈100 questions) and refuses the rest with -32603 as they come.
    const held: Array<(result: CreateMessageResult) => void> = [];
    const errors: Error[] = [];
    const client = track(
      connectClient({
        maxQuestionBytes: 1024 * 1024,
        sampling: () => new Promise((resolve) => held.push(resolve)),
        onError: (error) => errors.push(error),
      }),
    );
    await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
    const call = client.callTool('ask', {});
    call.catch(() => undefined); // awaited below
    await until(() => held.length + settled === QUESTIONS);
    expect(held.length).toBeGreaterThan(MAX_NOTICES_WAITING);
    const answered = held.length;
    // All answered in one turn: as many POSTs at once.
    for (const resolve of held) resolve(reply);
    await until(() => settled === QUESTIONS || errors.length > 0);
    expect(errors.map(String)).toEqual([]);
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'asked' }] });
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(answered);
    expect(outcomes.filter((outcome) => outcome === -32603)).toHaveLength(QUESTIONS - answered);
  });
});

describe('StreamableHttpClientTransport, a burst of pings on a call’s stream', () => {
  it('answers every one', async () => {
    const PINGS = 300;
    const answered = new Set<unknown>();
    let stream: ServerResponse | undefined;
    let callId: unknown;
    const http = await listen((req: IncomingMessage, res: ServerResponse, body: string) => {
      const message = (body ? JSON.parse(body) : {}) as { id?: unknown; method?: string; result?: unknown };
      if (req.method !== 'POST') res.writeHead(405).end();
      else if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: INIT_RESULT }));
      } else if (message.method === 'tools/call') {
        // Every ping at once on the call's stream; the call is answered once every ping was.
        sseHead(res);
        stream = res;
        callId = message.id;
        for (let n = 0; n < PINGS; n += 1) {
          res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: `p${n}`, method: 'ping' })}\n\n`);
        }
      } else {
        res.writeHead(202).end();
        if (message.result !== undefined) answered.add(message.id);
        if (answered.size === PINGS) {
          const result = { content: [{ type: 'text', text: 'pinged' }] };
          stream?.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result })}\n\n`);
        }
      }
    });
    const errors: Error[] = [];
    const client = track(connectClient({ onError: (error) => errors.push(error) }));
    await client.connect(new StreamableHttpClientTransport({ url: `${http.origin}/mcp` }));
    const call = client.callTool('t', {});
    call.catch(() => undefined); // awaited below
    await until(() => answered.size === PINGS || errors.length > 0);
    expect(errors.map(String)).toEqual([]);
    expect(answered.size).toBe(PINGS);
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'pinged' }] });
  });
});

describe('StreamableHttpClientTransport, a server that accepts no POST of an answer or notification', () => {
  it('keeps at most 1,024 waiting in line, sends an answer past the bound as an error answer', async () => {
    const holding: ServerResponse[] = [];
    let accepting = false;
    const http = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST' || accepting) res.writeHead(202).end();
      else holding.push(res);
    });
    const transport = track(new StreamableHttpClientTransport({ url: `${http.origin}/mcp` }));
    await transport.start();
    const notice = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/n', params: { n } });
    const sends: Array<Promise<void>> = [];
    for (let n = 0; n < MAX_NOTICES_WAITING; n += 1) sends.push(transport.send(notice(n)));
    await until(() => holding.length === MAX_NOTICES_WAITING);
    // The next ones wait in line: the answer too large for it is replaced by an error answer of its own.
    const large = transport.send({
      jsonrpc: '2.0',
      id: 'q1',
      result: { text: 'x'.repeat(MAX_QUEUED_NOTICE_BYTES) },
    });
    large.catch(() => undefined); // awaited below
    for (let n = 1; n < MAX_NOTICES_QUEUED; n += 1)
      sends.push(transport.send(notice(MAX_NOTICES_WAITING + n)));
    // The line is full: the next notification and the next answer are refused at once.
    const refused = {
      code: LocalErrorCode.SendFailed,
      message: expect.stringMatching(/wait in line for one/),
    };
    await expect(transport.send(notice(-1))).rejects.toMatchObject(refused);
    await expect(transport.send({ jsonrpc: '2.0', id: 'q2', result: {} })).rejects.toMatchObject(refused);
    expect(holding).toHaveLength(MAX_NOTICES_WAITING);
    // The server accepts them now: every one in line is sent, in order.
    accepting = true;
    for (const res of holding.splice(0)) res.writeHead(202).end();
    await Promise.all(sends);
    await expect(large).rejects.toMatchObject({
      code: LocalErrorCode.SendFailed,
      message: expect.stringMatching(
        /^The answer to request q1 \(\d+ bytes\) was not sent: .*error answer instead$/,
      ),
    });
    const bodies = http.seen
      .filter((seen) => seen.method === 'POST')
      .map((seen) => JSON.parse(seen.body) as Record<string, unknown>);
    expect(bodies).toHaveLength(MAX_NOTICES_WAITING + MAX_NOTICES_QUEUED);
    const numbers = bodies
      .map((body) => (body.params as { n?: number } | undefined)?.n)
      .filter((n) => n !== undefined);
    expect(numbers.sort((a, b) => a - b)).toEqual([
      ...Array.from({ length: MAX_NOTICES_WAITING }, (_, n) => n),
      ...Array.from({ length: MAX_NOTICES_QUEUED - 1 }, (_, n) => MAX_NOTICES_WAITING + n + 1),
    ]);
    expect(bodies.find((body) => body.id === 'q1')).toEqual({
      jsonrpc: '2.0',
      id: 'q1',
      error: {
        code: -32603,
        message: expect.stringMatching(/^Internal error: the client's answer \(\d+ bytes\) was dropped: /),
      },
    });
  });
});

describe('SseClientTransport (legacy HTTP+SSE), a server slow to accept POSTs of notifications', () => {
  it('sends every one, 64 POSTs at a time', async () => {
    const holding: ServerResponse[] = [];
    let accepting = false;
    const http = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'GET') {
        sseHead(res);
        res.write('event: endpoint\ndata: /messages\n\n');
      } else if (accepting) res.writeHead(202).end();
      else holding.push(res);
    });
    const transport = track(new SseClientTransport({ url: `${http.origin}/sse` }));
    await transport.start();
    const sends = Array.from({ length: 100 }, (_, n) =>
      transport.send({ jsonrpc: '2.0', method: 'notifications/n', params: { n } }),
    );
    await until(() => holding.length === MAX_NOTICES_WAITING);
    accepting = true;
    for (const res of holding.splice(0)) res.writeHead(202).end();
    await Promise.all(sends);
    expect(http.seen.filter((seen) => seen.method === 'POST')).toHaveLength(100);
  });
});

describe('StreamableHttpClientTransport, a POST waiting in line behind 64 the server never accepts', () => {
  it('is given up 30 s after it was asked for, not 30 s after a slot came', async () => {
    const holding: ServerResponse[] = [];
    const http = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST') res.writeHead(405).end();
      else holding.push(res);
    });
    const transport = track(new StreamableHttpClientTransport({ url: `${http.origin}/mcp` }));
    await transport.start();
    const notice = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/n', params: { n } });
    const sends = Array.from({ length: MAX_NOTICES_WAITING }, (_, n) => transport.send(notice(n)));
    for (const send of sends) send.catch(() => undefined); // dropped at their own deadline
    await until(() => holding.length === MAX_NOTICES_WAITING);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      // The line's last answer waited ≈8 min before (each slot's 30 s, one after the other): 30 s now.
      const late = transport.send({ jsonrpc: '2.0', id: 'q1', result: {} });
      late.catch(() => undefined); // awaited below
      await vi.advanceTimersByTimeAsync(NOTICE_TIMEOUT_MS);
      await expect(late).rejects.toMatchObject({
        code: LocalErrorCode.SendFailed,
        message: `POST not sent: it waited ${NOTICE_TIMEOUT_MS} ms in line and none of the ${MAX_NOTICES_WAITING} POSTs before it was accepted by the server`,
      });
    } finally {
      vi.useRealTimers();
    }
    expect(http.seen.filter((seen) => seen.method === 'POST')).toHaveLength(MAX_NOTICES_WAITING);
  });
});
