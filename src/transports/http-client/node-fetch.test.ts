import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CancellationSource, type Cancellation } from '../../protocol/engine/cancellation.js';
import { cancellableFetch, nodeFetch } from './node-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  port: number;
}

const servers: http.Server[] = [];

/** A server on a free loopback port answering with `handle`; records what each request carried. */
async function serve(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void,
): Promise<{ url: string; seen: Seen[]; server: http.Server }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const one = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        port: req.socket.remotePort ?? 0,
      };
      seen.push(one);
      handle(req, res, one);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('nodeFetch', () => {
  it('sends the method, headers and body, and gives the status, headers and body back', async () => {
    const { url, seen } = await serve((_req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'mcp-session-id': 's-1' });
      res.end('{"ok":true}');
    });
    const response = await nodeFetch(`${url}/mcp`, {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json', 'x-one': 'yes' }),
      body: '{"héllo":1}',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/mcp', body: '{"héllo":1}' });
    expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength('{"héllo":1}')));
    expect(seen[0]!.headers['x-one']).toBe('yes');
  });

  it('reads a body once, as fetch does (text, json, arrayBuffer), and clone() gives two readers', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: '/' }).end();
      else res.end('\ufeff{"a":"ü"}');
    });
    const once = await nodeFetch(`${url}/moved`);
    expect(once.redirected).toBe(true);
    expect(once.url).toBe(`${url}/`);
    expect(once.bodyUsed).toBe(false);
    expect(await once.json()).toEqual({ a: 'ü' }); // the byte order mark dropped, as fetch's decoder does
    expect(once.bodyUsed).toBe(true);
    await expect(once.text()).rejects.toBeInstanceOf(TypeError);
    const bytes = await (await nodeFetch(url)).arrayBuffer();
    expect(new TextDecoder().decode(bytes)).toBe('{"a":"ü"}');
    const original = await nodeFetch(url);
    const copy = original.clone();
    expect(await copy.text()).toBe('{"a":"ü"}');
    expect(await original.text()).toBe('{"a":"ü"}');
  });

  it('streams a body as it comes (an SSE stream is read before it ends)', async () => {
    let finish: (() => void) | undefined;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: last\n\n');
    });
    const response = await nodeFetch(url);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    finish!();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      rest += new TextDecoder().decode(part.value);
    }
    expect(rest).toBe('data: last\n\n');
  });

  it('keeps the connection alive between requests', async () => {
    const { url, seen } = await serve((_req, res) => res.end('x'));
    await (await nodeFetch(url)).text();
    await (await nodeFetch(url)).text();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  it('has no body for a 204 or a HEAD', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(req.method === 'HEAD' ? 200 : 204, { 'content-length': '5' });
      res.end();
    });
    const none = await nodeFetch(url, { method: 'DELETE' });
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
    const head = await nodeFetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
  });

  it('follows redirects as fetch does: 307 keeps the POST, 303 becomes a GET, another origin gets no authorization', async () => {
    const other = await serve((_req, res) => res.end('there'));
    const { url, seen } = await serve((req, res) => {
      if (req.url === '/keep') res.writeHead(307, { location: '/end' }).end();
      else if (req.url === '/see') res.writeHead(303, { location: '/end' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: `${other.url}/x` }).end();
      else res.end('here');
    });
    const post = {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'text/plain' },
      body: 'b',
    };
    expect(await (await nodeFetch(`${url}/keep`, post)).text()).toBe('here');
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/end', body: 'b' });
    expect(seen[1]!.headers.authorization).toBe('Bearer t');
    expect(await (await nodeFetch(`${url}/see`, post)).text()).toBe('here');
    expect(seen[3]).toMatchObject({ method: 'GET', url: '/end', body: '' });
    expect(seen[3]!.headers['content-type']).toBeUndefined();
    expect(await (await nodeFetch(`${url}/away`, post)).text()).toBe('there');
    expect(other.seen[0]).toMatchObject({ method: 'GET', url: '/x' });
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("sends only HTTP's and MCP's headers on to another origin (a key of one's own stays home), all on the same", async () => {
    const other = await serve((_req, res) => res.end('there'));
    const { url, seen } = await serve((req, res) => {
      if (req.url === '/away') res.writeHead(307, { location: `${other.url}/mcp` }).end();
      else if (req.url === '/stay') res.writeHead(307, { location: '/mcp' }).end();
      else res.end('here');
    });
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': 'S1',
      'x-api-key': 'key-of-one-s-own',
      cookie: 'session=1',
    };
    const post = { method: 'POST', headers, body: '{}' };
    expect(await (await nodeFetch(`${url}/away`, post)).text()).toBe('there');
    const { host: _host, connection: _connection, ...away } = other.seen[0]!.headers;
    expect(away).toEqual({
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'content-length': '2',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': 'S1',
    });
    expect(other.seen[0]).toMatchObject({ method: 'POST', body: '{}' });
    expect(await (await nodeFetch(`${url}/stay`, post)).text()).toBe('here');
    expect(seen[2]).toMatchObject({
      url: '/mcp',
      headers: { 'x-api-key': 'key-of-one-s-own', cookie: 'session=1' },
    });
  });

  it('cuts a redirect whose body passes 64 KiB (one that never ended was drained for ever), and reads a short one', async () => {
    let written = 0;
    let cut!: () => void;
    const closed = new Promise<void>((resolve) => (cut = resolve));
    const chunk = Buffer.alloc(16 * 1024, 120);
    const { url } = await serve((req, res) => {
      if (req.url === '/endless') {
        res.writeHead(307, { location: '/end' });
        res.once('close', cut);
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk)) written += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      } else if (req.url === '/short') res.writeHead(302, { location: '/end' }).end('moved'.repeat(100));
      else res.end('here');
    });
    expect(await (await nodeFetch(`${url}/endless`)).text()).toBe('here');
    await closed; // by the client, with no cancellation: the body was read to 64 KiB, not to its end
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(await (await nodeFetch(`${url}/short`)).text()).toBe('here');
  });

  it('fails after 20 redirects, as fetch does', async () => {
    const { url, seen } = await serve((_req, res) => res.writeHead(302, { location: '/again' }).end());
    const error = await nodeFetch(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(seen).toHaveLength(21);
  });

  it('rejects with the signal’s reason when aborted before or while waiting, and ends a body being read', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200);
      res.write('part');
    });
    const reason = new Error('stop');
    await expect(nodeFetch(url, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const controller = new AbortController();
    const waiting = nodeFetch(`${url}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(waiting).rejects.toBe(reason);
    const reading = new AbortController();
    const response = await nodeFetch(url, { signal: reading.signal });
    const reader = response.body!.getReader();
    await reader.read();
    reading.abort(reason);
    await expect(reader.read()).rejects.toBeDefined();
  });

  it('is cancelled by a Cancellation as by a signal, and stops following it once the exchange is over', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200);
      if (req.url === '/part') res.write('part');
      else res.end('whole');
    });
    const reason = new Error('stop');
    const before = new CancellationSource();
    before.abort(reason);
    await expect(cancellableFetch(url, {}, before)).rejects.toBe(reason);
    const waiting = new CancellationSource();
    const answer = cancellableFetch(`${url}/slow`, {}, waiting);
    setTimeout(() => waiting.abort(reason), 20);
    await expect(answer).rejects.toBe(reason);
    const reading = new CancellationSource();
    const response = await cancellableFetch(`${url}/part`, {}, reading);
    const reader = response.body!.getReader();
    await reader.read();
    reading.abort(reason);
    await expect(reader.read()).rejects.toBeDefined();
    // Over: it no longer listens (no listener left on a long-lived cancellation), and the kept-alive
    // connection serves the next request.
    const listening = new Set<unknown>();
    const counted: Cancellation = {
      aborted: false,
      reason: undefined,
      onAbort(listener) {
        listening.add(listener);
        return () => listening.delete(listener);
      },
    };
    const whole = await cancellableFetch(url, {}, counted);
    expect(listening.size).toBe(1);
    expect(await whole.text()).toBe('whole');
    await expect.poll(() => listening.size).toBe(0);
    expect(await (await cancellableFetch(url, {}, counted)).text()).toBe('whole');
  });

  it('says "fetch failed" with the network error as its cause', async () => {
    const { url, server } = await serve(() => undefined);
    server.close();
    await new Promise((resolve) => server.once('close', resolve));
    const error = (await nodeFetch(url).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('leaves what it does not cover to the global fetch (a Request, a streamed body)', async () => {
    const { url, seen } = await serve((_req, res) => res.end('ok'));
    expect(await (await nodeFetch(new Request(url, { method: 'PUT', body: 'r' }))).text()).toBe('ok');
    expect(seen[0]).toMatchObject({ method: 'PUT', body: 'r' });
  });
});
