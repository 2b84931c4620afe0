// Pre-registered credentials stay with the authorization server that issued them (MCP 2026-07-28, client
// registration, "Authorization Server Binding"), on the wire against toolwire's resource server and test
// authorization servers on 127.0.0.1: a second MCP server naming another authorization server, and one
// server that moves to another, never get the client's credentials sent there — with `clientIssuer`, or
// bound on first use (kept in the store) without it. The call rejects with an OAuthError instead.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  MemoryOAuthStore,
  OAuthClient,
  OAuthError,
  StreamableHttpClientTransport,
  type OAuthClientOptions,
} from '../src/transports/http-client/index.js';
import { startAuthorizationServer, type TestAuthorizationServer } from './_authorization-server.js';
import { startProtectedServer } from './_protected-server.js';

const SECRET = 'secret-registered-at-home';

/** Connects to `url` and lists its tools; resolves with the error, if any. */
async function listTools(url: string, oauth: OAuthClient): Promise<unknown> {
  const client = new Client({ name: 'oauth-binding', version: '1.0.0' });
  try {
    await client.connect(new StreamableHttpClientTransport({ url, oauth }));
    await client.listTools();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

/** The requests `as` received that carry the client's secret or id (a header or a form field). */
const carrying = (as: TestAuthorizationServer, clientId: string) =>
  as.requests.filter((request) => {
    const text = JSON.stringify([request.headers.authorization ?? '', request.body, request.query]);
    const basic = Buffer.from(String(request.headers.authorization ?? '').slice(6), 'base64').toString();
    return text.includes(SECRET) || text.includes(clientId) || basic.includes(SECRET);
  });

const credentials = (extra: Partial<OAuthClientOptions> = {}) =>
  ({
    grant: 'client_credentials',
    clientId: 'reports',
    clientSecret: SECRET,
    ...extra,
  }) as OAuthClientOptions;

describe('pre-registered credentials bound to their authorization server', () => {
  it('are bound on first use: a second MCP server naming another authorization server never gets them', async () => {
    await using home = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    await using other = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    await using first = await startProtectedServer(home);
    await using second = await startProtectedServer(other);
    const store = new MemoryOAuthStore();
    const oauth = new OAuthClient(credentials({ store }));
    expect(await listTools(first.url, oauth)).toBeUndefined();
    expect(home.to('/token')).toHaveLength(1);

    const refused = await listTools(second.url, oauth);
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused).toMatchObject({ code: 'AUTHORIZATION_FAILED', details: { step: 'registration' } });
    expect((refused as OAuthError).message).toContain(`belongs to the authorization server ${home.issuer}`);
    expect((refused as OAuthError).message).toContain(`not to ${other.issuer}`);
    expect(carrying(other, 'reports')).toEqual([]);
    expect(other.to('/token')).toHaveLength(0);

    // The binding is kept in the store: another client on it refuses too.
    const again = await listTools(second.url, new OAuthClient(credentials({ store })));
    expect(again).toBeInstanceOf(OAuthError);
    expect(carrying(other, 'reports')).toEqual([]);
  });

  it('with clientIssuer, go to that issuer only, even the first time', async () => {
    await using home = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    await using other = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    await using first = await startProtectedServer(home);
    await using second = await startProtectedServer(other);
    const oauth = new OAuthClient(credentials({ clientIssuer: home.issuer }));
    const refused = await listTools(second.url, oauth);
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused).toMatchObject({ details: { step: 'registration' } });
    expect((refused as OAuthError).message).toContain('(clientIssuer)');
    expect(carrying(other, 'reports')).toEqual([]);
    expect(await listTools(first.url, oauth)).toBeUndefined();
    expect(home.to('/token')).toHaveLength(1);

    // The issuer as the resource metadata names it, exactly: a trailing slash is another string.
    const slash = new OAuthClient(credentials({ clientIssuer: `${home.issuer}/` }));
    expect(await listTools(first.url, slash)).toBeInstanceOf(OAuthError);
    expect(home.to('/token')).toHaveLength(1);
  });

  it('are not sent to the authorization server an MCP server moved to', async () => {
    await using home = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    await using moved = await startAuthorizationServer({ clients: { reports: { secret: SECRET } } });
    // An MCP server whose resource metadata names `current`, and that takes that server's tokens only.
    let current = home;
    const server = createServer((req, res) => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
        const metadata = { resource: url, authorization_servers: [current.issuer] };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token !== undefined && decodeJwt(token).iss === current.issuer)
        return void res.writeHead(204).end();
      const challenge = `Bearer error="invalid_token", resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`;
      res.writeHead(401, { 'www-authenticate': challenge }).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    await using _server = {
      [Symbol.asyncDispose]: () => new Promise<void>((done) => server.close(() => done())),
    };
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const oauth = new OAuthClient(credentials());
    const send = () =>
      oauth.send({ resource: url, url, method: 'POST', headers: new Headers(), body: '{}', fetch });

    expect((await send()).status).toBe(204);
    current = moved;
    await expect(send()).rejects.toMatchObject({ name: 'OAuthError', details: { step: 'registration' } });
    expect(carrying(moved, 'reports')).toEqual([]);
    expect(moved.to('/token')).toHaveLength(0);
  });

  it('refuses clientIssuer without clientId, at construction', () => {
    expect(
      () => new OAuthClient({ grant: 'jwt_bearer', assertion: 'x', clientIssuer: 'https://as.example.test' }),
    ).toThrow(/clientIssuer .* needs clientId/);
  });
});
