// The OAuth client against a resource server and an authorization server that answer what they should not,
// on 127.0.0.1 over real HTTP (one node:http server plays both: `/mcp` is the protected resource, the
// rest its metadata and the authorization server's): tokens whose lifetime is over and none to refresh
// them with, lifetimes no clock can hold, a metadata document trickled in while the request is given up, registrations
// issuing a client id no authorization URL should carry. Each case is one found by `npm run attack -- --only oauth`.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  MemoryOAuthStore,
  OAuthClient,
  type OAuthRecord,
  type OAuthStore,
} from '../src/transports/http-client/index.js';

interface HostileServer extends AsyncDisposable {
  origin: string;
  mcp: URL;
  /** The token requests it answered, by grant type. */
  grants: string[];
  /** The `Authorization` headers `/mcp` was sent (`''` for none). */
  presented: string[];
}

type Route = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A resource and authorization server on one port; `tokenAnswer` is the JSON its token endpoint sends,
 * `routes` replace the answers of their paths.
 */
async function startHostileServer(
  tokenAnswer: (grant: number) => Record<string, unknown>,
  routes: Record<string, Route> = {},
): Promise<HostileServer> {
  const grants: string[] = [];
  const presented: string[] = [];
  const issued = new Set<string>();
  let origin = '';
  const json = (response: ServerResponse, status: number, body: unknown, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', origin).pathname;
      const route = routes[path];
      if (route !== undefined) {
        route(request, response);
      } else if (path === '/.well-known/oauth-protected-resource/mcp') {
        json(response, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
      } else if (path === '/.well-known/oauth-authorization-server') {
        json(response, 200, {
          issuer: origin,
          token_endpoint: `${origin}/token`,
          grant_types_supported: ['client_credentials', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        });
      } else if (path === '/token') {
        grants.push(new URLSearchParams(body).get('grant_type') ?? '');
        const answer = tokenAnswer(grants.length);
        if (typeof answer.access_token === 'string') issued.add(answer.access_token);
        json(response, 200, answer, { 'cache-control': 'no-store' });
      } else if (path === '/mcp') {
        const authorization = request.headers.authorization ?? '';
        presented.push(authorization);
        if (authorization.startsWith('Bearer ') && issued.has(authorization.slice(7))) {
          json(response, 200, { ok: true });
        } else {
          json(
            response,
            401,
            { error: 'unauthorized' },
            {
              'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
            },
          );
        }
      } else {
        json(response, 404, {});
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    mcp: new URL(`${origin}/mcp`),
    grants,
    presented,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A store that keeps records the way a file does: as JSON text. */
class JsonOAuthStore implements OAuthStore {
  readonly #records = new Map<string, string>();
  load(key: string): OAuthRecord | undefined {
    const text = this.#records.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as OAuthRecord);
  }
  save(key: string, record: OAuthRecord): void {
    this.#records.set(key, JSON.stringify(record));
  }
  delete(key: string): void {
    this.#records.delete(key);
  }
}

const service = (store: OAuthStore) =>
  new OAuthClient({ grant: 'client_credentials', clientId: 'svc', clientSecret: 'secret', store });

const send = (oauth: OAuthClient, server: HostileServer, signal?: AbortSignal) =>
  oauth.send({
    resource: server.mcp,
    url: server.mcp,
    method: 'POST',
    headers: new Headers({ 'content-type': 'application/json' }),
    body: '{}',
    fetch,
    signal,
  });

describe('the OAuth client against hostile servers', () => {
  it('authorizes again when the token it holds has expired and there is no refresh token', async () => {
    await using server = await startHostileServer((n) => ({
      access_token: `fresh-${n}`,
      token_type: 'Bearer',
      expires_in: 3600,
    }));
    const store = new MemoryOAuthStore();
    store.save(`${server.origin}/mcp`, {
      tokens: {
        accessToken: 'stale',
        tokenType: 'Bearer',
        issuer: server.origin,
        expiresAt: Date.now() - 60_000,
        client: { clientId: 'svc', source: 'pre-registered', tokenEndpointAuthMethod: 'client_secret_basic' },
      },
    });
    const response = await send(service(store), server);
    expect(response.status).toBe(200);
    expect(server.grants).toEqual(['client_credentials']);
    expect(server.presented).toEqual(['', 'Bearer fresh-1']);
  });

  it('sends no client secret to the origin of a server whose resource_metadata URL has no metadata (no 2025-03-26 fallback)', async () => {
    // Its 401 names resource metadata that is not there (404, as are the well-known URLs); the origin
    // publishes authorization server metadata, which a 2025-03-26 server's client would use.
    await using server = await startHostileServer((n) => ({ access_token: `t${n}`, token_type: 'Bearer' }), {
      '/.well-known/oauth-protected-resource/mcp': (_request, response) => void response.writeHead(404).end(),
    });
    const error = await send(service(new MemoryOAuthStore()), server).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTHORIZATION_FAILED', details: { step: 'discovery' } });
    expect((error as Error).message).toContain(
      `named its protected resource metadata (${server.origin}/.well-known/oauth-protected-resource/mcp)`,
    );
    expect(server.grants).toEqual([]);
    expect(server.presented).toEqual(['']);
  });

  it.each([
    ['1e308', 1e308],
    ['the string "1e300"', '1e300'],
  ])(
    'keeps a token whose expires_in (%s) no clock can hold as one without an expiry, through a JSON store',
    async (_what, expiresIn) => {
      await using server = await startHostileServer((n) => ({
        access_token: `long-${n}`,
        token_type: 'Bearer',
        expires_in: expiresIn,
      }));
      const store = new JsonOAuthStore();
      expect((await send(service(store), server)).status).toBe(200);
      const status = await service(store).status(server.mcp);
      expect(status?.expiresAt).toBeUndefined();
      // Another client with the same store (another process of the CLI) sends the token it holds.
      expect((await send(service(store), server)).status).toBe(200);
      expect(server.grants).toEqual(['client_credentials']);
      expect(server.presented).toEqual(['', 'Bearer long-1', 'Bearer long-1']);
    },
  );

  it('ends a request its caller aborts while the resource metadata trickles in, a space a second', async () => {
    let arrived!: () => void;
    const trickling = new Promise<void>((resolve) => (arrived = resolve));
    await using server = await startHostileServer((n) => ({ access_token: `t${n}`, token_type: 'Bearer' }), {
      '/.well-known/oauth-protected-resource/mcp': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{');
        const timer = setInterval(() => response.write(' '), 1000);
        response.on('close', () => clearInterval(timer));
        arrived();
      },
    });
    const controller = new AbortController();
    const sent = send(service(new MemoryOAuthStore()), server, controller.signal);
    await trickling;
    controller.abort();
    await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.grants).toEqual([]);
  });

  it.each([
    ['200,000 characters long', 'c'.repeat(200_000)],
    ['made of a CR LF', 'a\r\nb'],
  ])('refuses a registration whose client_id is %s, before any browser opens', async (_what, clientId) => {
    let origin = '';
    await using server = await startHostileServer(() => ({}), {
      '/.well-known/oauth-authorization-server': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
          }),
        );
      },
      '/register': (_request, response) => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ client_id: clientId }));
      },
    });
    origin = server.origin;
    const opened: string[] = [];
    const oauth = new OAuthClient({
      redirectUrl: 'http://127.0.0.1:9/callback',
      authorize: (url) => {
        opened.push(url.href);
        return Promise.reject(new Error('no browser here'));
      },
    });
    await expect(send(oauth, server)).rejects.toMatchObject({
      code: 'AUTHORIZATION_FAILED',
      details: { step: 'registration' },
    });
    expect(opened).toEqual([]);
  });
});
