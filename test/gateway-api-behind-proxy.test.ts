// Console sign-in (a cookie-authenticated POST, CSRF-checked) through what stands in front of a gateway: a
// proxy passing the browser's Host as nginx's `$http_host` does (the README's block) and the README's
// plain-Node round-robin balancer (which passes it as sent), a TLS terminator
// whose `X-Forwarded-Proto: https` the API trusts only when told (`trustForwardedProto`), and a public
// address listed in `allowedOrigins`. The Origin check is not weakened by default: an https Origin, or an
// `X-Forwarded-Proto` the API was not told to trust, is still refused.
import { createServer, request, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway,
  serveGateway,
  type DecisionApiOptions,
  type Gateway,
  type GatewayHttpHandle,
} from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { roundRobin } from './_round-robin.js';

let upstream: HttpServerHandle;
let gateway: Gateway;
const handles: GatewayHttpHandle[] = [];

beforeAll(async () => {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool('write', {}, () => text('written'));
  upstream = await serveHttp(server, { port: 0 });
  gateway = createGateway({ upstreams: { files: { url: upstream.url } } }, { onLog: () => undefined });
  await gateway.start();
});

afterAll(async () => {
  for (const handle of handles) await handle.close();
  await gateway?.close();
  await upstream?.close();
});

async function serve(api: DecisionApiOptions = {}): Promise<GatewayHttpHandle> {
  const handle = await serveGateway(gateway, { port: 0, mcp: false, console: false, api });
  handles.push(handle);
  return handle;
}

/** `POST /api/session` with the API token, as the console's page sends it, with these headers. */
function signIn(base: string, token: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolwire-console': '1', ...headers },
    body: JSON.stringify({ token }),
  });
}

/** A reverse proxy to `port` that sets Host to what `host(incoming Host)` says (nginx's proxy_set_header). */
async function proxy(
  port: number,
  host: (incoming: string) => string,
): Promise<{ base: string; server: HttpServer }> {
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: '127.0.0.1',
        port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: host(incoming.headers.host ?? '') },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('console sign-in behind a reverse proxy', () => {
  it("signs in through a proxy that passes the browser's Host with its port ($http_host)", async () => {
    const served = await serve();
    const { base, server } = await proxy(served.port, (incoming) => incoming);
    try {
      const response = await signIn(base, served.api.token, {
        origin: base,
        'sec-fetch-site': 'same-origin',
      });
      expect(response.status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("signs in through the README's round-robin balancer (test/_round-robin.ts), which passes the Host as sent", async () => {
    const served = await serve();
    const balancer = await roundRobin([`http://127.0.0.1:${served.port}`]);
    try {
      const response = await signIn(balancer.base, served.api.token, {
        origin: balancer.base,
        'sec-fetch-site': 'same-origin',
      });
      expect(response.status).toBe(200);
      expect(balancer.served).toEqual([1]);
    } finally {
      await balancer.close();
    }
  });

  it('refuses an https Origin against a plain http request, and an X-Forwarded-Proto it was not told to trust', async () => {
    const served = await serve();
    const own = `http://127.0.0.1:${served.port}`;
    const https = `https://127.0.0.1:${served.port}`;
    expect((await signIn(own, served.api.token, { origin: https })).status).toBe(403);
    const forwarded = await signIn(own, served.api.token, { origin: https, 'x-forwarded-proto': 'https' });
    expect(forwarded.status).toBe(403);
    expect((await signIn(own, served.api.token, { origin: own })).status).toBe(200);
  });
});

describe('console sign-in behind a TLS terminator (trustForwardedProto)', () => {
  it("takes the scheme from X-Forwarded-Proto: https Origin accepted, cookie Secure; another site's still refused", async () => {
    const served = await serve({ trustForwardedProto: true });
    const own = `http://127.0.0.1:${served.port}`;
    const https = `https://127.0.0.1:${served.port}`;
    const headers = { 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' };
    const response = await signIn(own, served.api.token, { ...headers, origin: https });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/; Secure/);
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    // A change the cookie authenticates passes the same check.
    const change = (origin: string) =>
      fetch(`${own}/api/tools/files__write/hidden`, {
        method: 'POST',
        headers: {
          ...headers,
          cookie,
          origin,
          'content-type': 'application/json',
          'x-toolwire-console': '1',
        },
        body: JSON.stringify({ hidden: false }),
      });
    expect((await change(https)).status).toBe(200);
    expect((await change(own)).status).toBe(403); // the browser is on https: an http Origin is another
    expect((await signIn(own, served.api.token, { ...headers, origin: 'https://localhost:1' })).status).toBe(
      403,
    );
  });
});

describe('console sign-in from an origin allowedOrigins lists', () => {
  it('accepts a listed public Origin (https, another host than the Host header names), and no other', async () => {
    const served = await serve({ allowedOrigins: ['https://console.example.com'] });
    const own = `http://127.0.0.1:${served.port}`;
    const response = await signIn(own, served.api.token, {
      origin: 'https://console.example.com',
      'sec-fetch-site': 'same-origin',
    });
    expect(response.status).toBe(200);
    expect((await signIn(own, served.api.token, { origin: 'https://other.example.com' })).status).toBe(403);
    // Sec-Fetch-Site still has the last word: a listed origin's request from another site is refused.
    const crossSite = await signIn(own, served.api.token, {
      origin: 'https://console.example.com',
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
  });
});
