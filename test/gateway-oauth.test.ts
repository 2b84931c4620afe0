// The gateway in front of OAuth-protected upstreams (issue 21), on the wire: toolwire's own resource server
// (test/_protected-server.ts) and the small authorization server of the OAuth client's tests, both on
// 127.0.0.1. The gateway connects with its own client credentials, or with tokens its store already holds
// (those `toolwire login URL` keeps); an upstream that needs a person says so, and a person's sign-in
// through the decision API (start, the authorization server's redirect, the callback) connects it, with
// the callback's state and the flow's PKCE verifier checked.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type Gateway, type UpstreamView } from '../src/gateway/index.js';
import {
  MemoryOAuthStore,
  OAuthClient,
  StreamableHttpClientTransport,
} from '../src/transports/http-client/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { startAuthorizationServer } from './_authorization-server.js';
import { startProtectedServer } from './_protected-server.js';

const TOKEN = 'gateway-oauth-test-token';

/** A headless browser: the test authorization server approves at once; its redirect is the answer. */
async function follow(url: string | URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect from ${String(url)} (HTTP ${response.status})`);
  return location;
}

/** Waits for the upstream's status to become `status` (the gateway's events, not a sleep). */
function statusOf(gateway: Gateway, name: string, status: UpstreamView['status']): Promise<void> {
  const now = () => gateway.upstreams().find((u) => u.name === name)?.status;
  if (now() === status) return Promise.resolve();
  return new Promise((resolve) => {
    const off = gateway.on(() => {
      if (now() !== status) return;
      off();
      resolve();
    }, ['upstream.status']);
  });
}

async function gatewayTools(gateway: Gateway): Promise<string[]> {
  return gateway
    .tools()
    .filter((tool) => tool.listed)
    .map((tool) => tool.name)
    .sort();
}

/** The gateway served on a free port: its MCP endpoint and decision API, and a POST to the API. */
async function served(gateway: Gateway) {
  const handle = await serveGateway(gateway, { port: 0, console: false, api: { token: TOKEN } });
  const api = (path: string, body: unknown) =>
    fetch(`${handle.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return Object.assign(handle, { post: api, [Symbol.asyncDispose]: () => handle.close() });
}

describe('gateway upstreams behind OAuth', () => {
  it('connects with its own client credentials (client_secret_basic, the resource indicator)', async () => {
    await using as = await startAuthorizationServer({ clients: { 'gw-client': { secret: 'gw-secret' } } });
    await using rs = await startProtectedServer(as);
    process.env.TOOLWIRE_TEST_GATEWAY_SECRET = 'gw-secret';
    const gateway = createGateway(
      {
        upstreams: {
          notes: {
            url: rs.url,
            oauth: {
              grant: 'client_credentials',
              clientId: 'gw-client',
              clientSecretEnv: 'TOOLWIRE_TEST_GATEWAY_SECRET',
            },
          },
        },
      },
      { onLog: () => undefined },
    );
    try {
      await gateway.start();
      const [view] = gateway.upstreams();
      expect(view).toMatchObject({ status: 'ready', oauth: 'client' });
      expect(await gatewayTools(gateway)).toContain('notes__echo');
      const [grant] = as.to('/token');
      expect(grant?.body).toMatchObject({ grant_type: 'client_credentials', resource: rs.url });
      expect(grant?.headers.authorization).toMatch(/^Basic /);
      expect(rs.schemes.slice(1).every((scheme) => scheme === 'Bearer')).toBe(true);
    } finally {
      delete process.env.TOOLWIRE_TEST_GATEWAY_SECRET;
      await gateway.close();
    }
  });

  it('uses the tokens its store holds for an upstream URL, with no oauth setting (toolwire login)', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    // What `toolwire login URL` does: a sign-in that keeps the tokens in the store, keyed by the URL.
    const login = new OAuthClient({
      redirectUrl: 'http://127.0.0.1:8976/callback',
      authorize: follow,
      store,
    });
    await login.authorize(rs.url, { scope: 'notes:read' });
    const authorizations = as.to('/authorize').length;

    const gateway = createGateway(
      { upstreams: { notes: { url: rs.url } } },
      { onLog: () => undefined, oauthStore: store },
    );
    try {
      await gateway.start();
      expect(gateway.upstreams()[0]?.status).toBe('ready');
      expect(await gatewayTools(gateway)).toContain('notes__read_notes');
      expect(as.to('/authorize')).toHaveLength(authorizations); // nobody signed in again
    } finally {
      await gateway.close();
    }
  });

  it('says an upstream needs a person to sign in, and connects it after a sign-in through the API', async () => {
    await using as = await startAuthorizationServer({ scopesSupported: ['notes:read'] });
    await using rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    const gateway = createGateway(
      { upstreams: { notes: { url: rs.url, oauth: {} } }, policy: { default: 'allow' } },
      { onLog: () => undefined },
    );
    await using handle = await served(gateway);
    try {
      await gateway.start();
      const waiting = gateway.upstreams()[0];
      expect(waiting).toMatchObject({ status: 'needs-sign-in', oauth: 'person', tools: [] });
      expect(waiting?.error).toMatch(/^sign in to upstream notes: .*401/);
      expect(await gatewayTools(gateway)).toEqual([]);

      const started = await handle.post('/upstreams/notes/sign-in', {});
      expect(started.status).toBe(200);
      const { authorizationUrl } = (await started.json()) as { authorizationUrl: string };
      const query = new URL(authorizationUrl).searchParams;
      const origin = new URL(handle.apiUrl).origin;
      expect(Object.fromEntries(query)).toMatchObject({
        response_type: 'code',
        redirect_uri: `${origin}/console/callback`,
        code_challenge_method: 'S256',
        resource: rs.url,
        scope: 'notes:read',
      });
      // A second "Sign in" while the first is under way: the same flow.
      const again = (await (await handle.post('/upstreams/notes/sign-in', {})).json()) as {
        authorizationUrl: string;
      };
      expect(again.authorizationUrl).toBe(authorizationUrl);

      const callback = await follow(authorizationUrl);
      // A callback whose state is not the flow's, or not at the callback's address: refused.
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state');
      const refused = await handle.post('/sign-in/callback', { url: forged.href });
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SIGN_IN_NOT_FOUND');
      const elsewhere = await handle.post('/sign-in/callback', {
        url: callback.replace('/console/callback', '/elsewhere'),
      });
      expect(elsewhere.status).toBe(400);
      expect(as.to('/token')).toHaveLength(0);
      const completed = await handle.post('/sign-in/callback', { url: callback });
      expect(completed.status).toBe(200);
      const { upstream } = (await completed.json()) as { upstream: UpstreamView };
      expect(upstream.status).toBe('ready');
      expect(upstream.tools).toContain('notes__read_notes');
      const [exchange] = as.to('/token');
      expect(exchange?.body).toMatchObject({ grant_type: 'authorization_code', resource: rs.url });
      expect(exchange?.body.code_verifier).toMatch(/^[\w-]{43,128}$/);

      // Used once: the same callback again names no flow.
      expect((await handle.post('/sign-in/callback', { url: callback })).status).toBe(404);

      // And a caller of the gateway reaches the upstream's tools with the person's token.
      const client = new Client({ name: 'caller', version: '1.0.0' });
      await client.connect(new StreamableHttpClientTransport({ url: handle.url! }));
      expect((await client.callTool('notes__read_notes', {})).content).toEqual([
        { type: 'text', text: 'the notes' },
      ]);
      await client.close();
    } finally {
      await gateway.close();
    }
  });

  it('needs a person again when the tokens stop working, and a call then says to sign in', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    await new OAuthClient({
      redirectUrl: 'http://127.0.0.1:8976/callback',
      authorize: follow,
      store,
    }).authorize(rs.url);
    const gateway = createGateway(
      { upstreams: { notes: { url: rs.url, oauth: {} } }, policy: { default: 'allow' } },
      { onLog: () => undefined, oauthStore: store },
    );
    const [clientSide, serverSide] = createLinkedPair();
    const client = new Client({ name: 'caller', version: '1.0.0' });
    try {
      await gateway.start();
      await gateway.server.connect(serverSide);
      await client.connect(clientSide);
      expect((await client.callTool('notes__echo', { text: 'hi' })).content).toEqual([
        { type: 'text', text: 'hi' },
      ]);
      // The tokens are revoked: the next call's 401 asks for a refresh, which fails; the tokens go.
      as.revokeRefreshTokens();
      rs.revokeTokens();
      const needed = statusOf(gateway, 'notes', 'needs-sign-in');
      await client.callTool('notes__echo', { text: 'again' }).catch(() => undefined);
      await needed;
      const refused = await client.callTool('notes__echo', { text: 'once more' });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^Sign in to upstream notes first/) },
      ]);
      expect(gateway.upstreams()[0]?.error).toMatch(/^sign in to upstream notes: .*401/);
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('takes a sign-in only from whoever may decide, and never a cross-site one', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const gateway = createGateway(
      { upstreams: { notes: { url: rs.url, oauth: {} } } },
      { onLog: () => undefined },
    );
    await using handle = await served(gateway);
    try {
      await gateway.start();
      const session = await fetch(`${handle.apiUrl}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
        body: JSON.stringify({ token: TOKEN }),
      });
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!;
      const start = (headers: Record<string, string>) =>
        fetch(`${handle.apiUrl}/upstreams/notes/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie, ...headers },
          body: '{}',
        });
      // A page elsewhere can send the cookie, but neither the console's header nor a same-origin fetch.
      expect((await start({})).status).toBe(403);
      expect((await start({ 'x-toolwire-console': '1', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await start({ 'x-toolwire-console': '1', origin: 'https://evil.example' })).status).toBe(403);
      // Without credentials: 401; an upstream that is not there: 404; the console's own page: 200.
      const anonymous = await fetch(`${handle.apiUrl}/upstreams/notes/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);
      expect((await handle.post('/upstreams/nope/sign-in', {})).status).toBe(404);
      expect(as.to('/authorize')).toHaveLength(0);
      const ok = await start({ 'x-toolwire-console': '1', 'sec-fetch-site': 'same-origin' });
      expect(ok.status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('keeps waiting when the person denies access, with a clear refusal', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const gateway = createGateway(
      { upstreams: { notes: { url: rs.url, oauth: {} } } },
      { onLog: () => undefined },
    );
    await using handle = await served(gateway);
    try {
      await gateway.start();
      const { authorizationUrl } = (await (await handle.post('/upstreams/notes/sign-in', {})).json()) as {
        authorizationUrl: string;
      };
      const denied = new URL(await follow(authorizationUrl));
      denied.searchParams.delete('code');
      denied.searchParams.set('error', 'access_denied');
      const answer = await handle.post('/sign-in/callback', { url: denied.href });
      expect(answer.status).toBe(502);
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('SIGN_IN_FAILED');
      expect(error.message).toMatch(/access_denied/);
      expect(gateway.upstreams()[0]?.status).toBe('needs-sign-in');
      expect(as.to('/token')).toHaveLength(0);
    } finally {
      await gateway.close();
    }
  });
});
