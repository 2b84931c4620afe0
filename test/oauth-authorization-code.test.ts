// The OAuth client's authorization code flow on the wire (issue 21): a toolwire Client over Streamable
// HTTP with an OAuthClient, against toolwire's own resource server and a small authorization server in the
// tests (test/_authorization-server.ts), both on 127.0.0.1. Discovery in the spec's order, the client's
// identity (registration, pre-registered, Client ID Metadata Documents), PKCE, the resource indicator,
// scopes, refresh, step-up with its limit, one flow for concurrent refusals, logout.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  MemoryOAuthStore,
  OAuthClient,
  OAuthError,
  StreamableHttpClientTransport,
  TransportError,
  type AuthorizeHandler,
  type OAuthClientOptions,
} from '../src/transports/http-client/index.js';
import { startAuthorizationServer } from './_authorization-server.js';
import { startProtectedServer } from './_protected-server.js';

const REDIRECT = 'http://127.0.0.1:8976/callback';

/** A headless browser: the test authorization server approves at once; its redirect is the answer. */
const browser: AuthorizeHandler = async (url) => {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect from ${url.href} (HTTP ${response.status})`);
  return location;
};

function oauthClient(options: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({ redirectUrl: REDIRECT, authorize: browser, ...options } as OAuthClientOptions);
}

async function connect(url: string, oauth: OAuthClient): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url, oauth }));
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** One `initialize` POST to `url` through `oauth`, sent with `send` (its body read). */
async function initialize(oauth: OAuthClient, url: string, send: typeof fetch = fetch): Promise<Response> {
  const response = await oauth.send({
    resource: new URL(url),
    url: new URL(url),
    method: 'POST',
    headers: new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
    fetch: send,
  });
  await response.text();
  return response;
}

/** Makes the tokens `store` keeps for `url` expired (as if kept long enough ago). */
function expireKept(store: MemoryOAuthStore, url: string): void {
  const record = store.load(url);
  if (record?.tokens === undefined) throw new Error(`no tokens kept for ${url}`);
  store.save(url, { ...record, tokens: { ...record.tokens, expiresAt: Date.now() - 1000 } });
}

const names = async (client: Client) => (await client.listTools()).map((tool) => tool.name).sort();

describe('OAuth authorization code grant', () => {
  it('discovers, registers, signs in with PKCE and the resource indicator, then sends the token', async () => {
    await using as = await startAuthorizationServer({ scopesSupported: ['notes:read', 'notes:write'] });
    await using rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    const oauth = oauthClient({ clientMetadata: { client_name: 'oauth-test' } });
    await using client = await connect(rs.url, oauth);
    expect(await names(client)).toContain('read_notes');
    expect((await client.callTool('read_notes', {})).content).toEqual([{ type: 'text', text: 'the notes' }]);

    const [registration] = as.to('/register');
    expect(registration?.body).toMatchObject({
      client_name: 'oauth-test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    const [authorization] = as.to('/authorize');
    expect(authorization?.query).toMatchObject({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: REDIRECT,
      code_challenge_method: 'S256',
      resource: rs.url,
      scope: 'notes:read', // the challenge's scope (the resource metadata's scopes_supported)
    });
    expect(authorization?.query.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(authorization?.query.state).toMatch(/^[\w-]{20,}$/);
    const [exchange] = as.to('/token');
    expect(exchange?.body).toMatchObject({
      grant_type: 'authorization_code',
      resource: rs.url,
      client_id: 'client-1',
    });
    expect(exchange?.body.code_verifier).toMatch(/^[\w-]{43,128}$/);
    // The first request went without a token; every later one carried it.
    expect(rs.schemes[0]).toBe('none');
    expect(rs.schemes.slice(1).every((scheme) => scheme === 'Bearer')).toBe(true);
    expect(await oauth.status(rs.url)).toMatchObject({
      issuer: as.issuer,
      tokenType: 'Bearer',
      refreshable: true,
    });
  });

  it('tries the metadata URLs in the spec order: path-inserted RFC 8414, path-inserted OIDC, path-appended OIDC', async () => {
    await using as = await startAuthorizationServer({ issuerPath: '/tenant1', discovery: 'openid-appended' });
    await using rs = await startProtectedServer(as);
    await using client = await connect(rs.url, oauthClient());
    expect(await names(client)).toContain('echo');
    const lookups = as.requests
      .filter((request) => request.path.includes('.well-known'))
      .map((request) => request.path);
    expect(lookups).toEqual([
      '/.well-known/oauth-authorization-server/tenant1',
      '/.well-known/openid-configuration/tenant1',
      '/tenant1/.well-known/openid-configuration',
    ]);
    expect(as.to('/tenant1/authorize')).toHaveLength(1);
  });

  it('prefers pre-registered credentials, then a Client ID Metadata Document, to registering', async () => {
    await using as = await startAuthorizationServer({
      clientIdMetadataDocuments: true,
      clients: { 'app-1': { secret: 's3cret-value', redirectUris: [REDIRECT] } },
    });
    await using rs = await startProtectedServer(as);
    await using first = await connect(
      rs.url,
      oauthClient({ clientId: 'app-1', clientSecret: 's3cret-value' }),
    );
    await first.listTools();
    expect(as.to('/authorize')[0]?.query.client_id).toBe('app-1');
    const basic = Buffer.from(
      String(as.to('/token')[0]?.headers.authorization).slice(6),
      'base64',
    ).toString();
    expect(basic).toBe('app-1:s3cret-value');

    const documentUrl = 'https://app.example.test/oauth/client.json';
    await using second = await connect(rs.url, oauthClient({ clientMetadataUrl: documentUrl }));
    await second.listTools();
    expect(as.to('/authorize')[1]?.query.client_id).toBe(documentUrl);
    expect(as.to('/register')).toHaveLength(0);
  });

  it('refreshes an expiring token with its refresh token instead of signing in again', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    await oauthClient({ store }).authorize(rs.url);
    expireKept(store, rs.url);
    await using client = await connect(rs.url, oauthClient({ store }));
    await client.listTools();
    await client.callTool('echo', { text: 'again' });
    const grants = as.to('/token').map((request) => request.body.grant_type);
    expect(grants).toEqual(['authorization_code', 'refresh_token']);
    expect(as.to('/authorize')).toHaveLength(1);
    expect(as.to('/token').at(-1)?.body.resource).toBe(rs.url);
  });

  it('keeps the refresh token through a refresh the authorization server could not answer, and uses it after', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    await oauthClient({ store }).authorize(rs.url);
    expireKept(store, rs.url);
    // The token endpoint is down (503) for a while; nobody is there to sign in meanwhile.
    let down = true;
    const outage: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      if (down && url.pathname === '/token') return Promise.resolve(new Response('{}', { status: 503 }));
      return fetch(input, init);
    };
    const oauth = oauthClient({
      store,
      fetch: outage,
      authorize: () => Promise.reject(new Error('nobody is there')),
    });
    await expect(initialize(oauth, rs.url)).rejects.toMatchObject({ code: 'AUTHORIZATION_FAILED' });
    expect(store.load(rs.url)?.tokens?.refreshToken).toEqual(expect.any(String));
    down = false;
    expect((await initialize(oauth, rs.url)).status).toBe(200);
    expect(as.to('/token').map((request) => request.body.grant_type)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
    expect(as.to('/authorize')).toHaveLength(1);
  });

  it('refreshes a token that lives 10 s once half of it is gone, not before every request', async () => {
    await using as = await startAuthorizationServer({ expiresIn: 10 });
    await using rs = await startProtectedServer(as);
    await using client = await connect(rs.url, oauthClient());
    for (let i = 0; i < 20; i++) await client.callTool('echo', { text: `${i}` });
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.callTool('echo', { text: `${i}` })));
    const refreshes = as.to('/token').filter((request) => request.body.grant_type === 'refresh_token');
    // None while the 40 calls take less than 5 s; one per 5 s on a host slow enough to take longer.
    expect(refreshes.length).toBeLessThanOrEqual(1);
  });

  it('runs one refresh for requests that find the token expiring together', async () => {
    await using as = await startAuthorizationServer({ expiresIn: 10 });
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    await oauthClient({ store }).authorize(rs.url);
    expireKept(store, rs.url);
    const oauth = oauthClient({ store });
    const responses = await Promise.all(Array.from({ length: 20 }, () => initialize(oauth, rs.url)));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    expect(as.to('/token').map((request) => request.body.grant_type)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
  });

  it('steps up to the union of the scopes held and the scopes a 403 names, once', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    await using client = await connect(rs.url, oauthClient());
    await client.callTool('read_notes', {});
    const result = await client.callTool('write_notes', { text: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: 'wrote hello' }]);
    const scopes = as.to('/authorize').map((request) => request.query.scope?.split(' ').sort());
    expect(scopes).toEqual([['notes:read'], ['notes:read', 'notes:write']]);
  });

  it('stops stepping up after maxStepUps and reports the 403 when the server never grants the scope', async () => {
    await using as = await startAuthorizationServer({ grant: () => 'notes:read' });
    await using rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    await using client = await connect(rs.url, oauthClient({ maxStepUps: 2 }));
    const error = await client.callTool('write_notes', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'FORBIDDEN', details: { status: 403, error: 'insufficient_scope' } });
    expect(as.to('/authorize')).toHaveLength(3); // the sign-in, and two step-ups
  });

  it('runs one flow for requests refused together', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const oauth = oauthClient();
    const responses = await Promise.all([1, 2, 3].map(() => initialize(oauth, rs.url)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(as.to('/authorize')).toHaveLength(1);
  });

  it('asks a person once for requests their revoked tokens got refused together, and for none started meanwhile', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    let prompts = 0;
    let decline = false;
    let meanwhile: Promise<unknown> | undefined;
    const oauth: OAuthClient = oauthClient({
      authorize: async (url, signal) => {
        prompts++;
        if (!decline) return browser(url, signal);
        // A request comes while the person is asked (it waits for the answer); then they close the tab.
        meanwhile ??= initialize(oauth, rs.url).catch((error: unknown) => error);
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('the person closed the tab');
      },
    });
    expect((await initialize(oauth, rs.url)).status).toBe(200);
    as.revokeRefreshTokens();
    rs.revokeTokens();
    decline = true;
    // Five requests go out with the revoked token: the first one's 401 asks the person; the others' 401s
    // are held back until it has failed.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const late: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      await held;
      return response;
    };
    const first = initialize(oauth, rs.url).catch((error: unknown) => error);
    const others = [1, 2, 3, 4].map(() => initialize(oauth, rs.url, late).catch((error: unknown) => error));
    const declined = { code: 'AUTHORIZATION_FAILED', details: { step: 'authorization' } };
    expect(await first).toMatchObject(declined);
    release();
    for (const outcome of await Promise.all([...others, meanwhile])) expect(outcome).toMatchObject(declined);
    expect(prompts).toBe(2);
    // A request started after the refusal asks again.
    decline = false;
    expect((await initialize(oauth, rs.url)).status).toBe(200);
    expect(prompts).toBe(3);
  });

  it('keeps tokens in its store across clients, and forgets them on logout', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const store = new MemoryOAuthStore();
    await using first = await connect(rs.url, oauthClient({ store }));
    await first.listTools();
    const second = oauthClient({ store });
    await using again = await connect(rs.url, second);
    await again.listTools();
    expect(as.to('/authorize')).toHaveLength(1);
    await second.logout(rs.url);
    expect(await second.status(rs.url)).toBeUndefined();
    expect(store.load(new URL(rs.url).href)).toBeUndefined();
  });

  it('reports the user denying access as an OAuthError, and asks nothing more', async () => {
    await using as = await startAuthorizationServer();
    await using rs = await startProtectedServer(as);
    const deny: AuthorizeHandler = (url) => {
      const state = url.searchParams.get('state') ?? '';
      return Promise.resolve(
        `${REDIRECT}?error=access_denied&state=${state}&iss=${encodeURIComponent(as.issuer)}`,
      );
    };
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    const error = await client
      .connect(new StreamableHttpClientTransport({ url: rs.url, oauth: oauthClient({ authorize: deny }) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({
      code: 'AUTHORIZATION_FAILED',
      details: { step: 'authorization', error: 'access_denied' },
    });
    expect(as.to('/token')).toHaveLength(0);
  });
});
