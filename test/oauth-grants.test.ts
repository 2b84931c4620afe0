// The OAuth client's other grants and bindings on the wire (issue 21), against toolwire's resource server
// and the test authorization server on 127.0.0.1: client credentials with each client authentication
// (client_secret_basic, client_secret_post, private_key_jwt), the JWT bearer grant (workload identity; a
// refused assertion is not retried), enterprise-managed authorization (token exchange at an identity
// provider for an ID-JAG, then the JWT bearer grant), DPoP-bound tokens with the nonces both servers ask
// for, and a 2025-03-26 server without any metadata (the default endpoints at its origin).
import { SignJWT, decodeJwt, exportPKCS8, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  MemoryOAuthStore,
  OAuthClient,
  OAuthError,
  SseClientTransport,
  StreamableHttpClientTransport,
  type AuthorizeHandler,
} from '../src/transports/http-client/index.js';
import { startAuthorizationServer } from './_authorization-server.js';
import { startProtectedServer } from './_protected-server.js';

async function connect(url: string, oauth: OAuthClient): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: 'oauth-grants', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url, oauth }));
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

const browser: AuthorizeHandler = async (url) => {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  return response.headers.get('location') ?? '';
};

const basicUser = (header: unknown) =>
  Buffer.from(String(header).slice(6), 'base64').toString().split(':')[0];

describe('client credentials', () => {
  it.each([
    ['client_secret_basic', ['client_secret_basic']],
    ['client_secret_post', ['client_secret_post']],
  ] as const)('authenticates with %s when that is what the server takes', async (method, methods) => {
    await using as = await startAuthorizationServer({
      authMethods: [...methods],
      clients: { 'svc-1': { secret: 'svc-secret' } },
    });
    await using rs = await startProtectedServer(as);
    const oauth = new OAuthClient({
      grant: 'client_credentials',
      clientId: 'svc-1',
      clientSecret: 'svc-secret',
    });
    await using client = await connect(rs.url, oauth);
    expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
    const [request] = as.to('/token');
    expect(request?.body).toMatchObject({ grant_type: 'client_credentials', resource: rs.url });
    if (method === 'client_secret_basic') {
      expect(basicUser(request?.headers.authorization)).toBe('svc-1');
      expect(request?.body.client_secret).toBeUndefined();
    } else {
      expect(request?.body).toMatchObject({ client_id: 'svc-1', client_secret: 'svc-secret' });
      expect(request?.headers.authorization).toBeUndefined();
    }
    expect(as.to('/authorize')).toHaveLength(0);
  });

  it('authenticates with private_key_jwt: an assertion signed for the issuer, from a PEM key', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    await using as = await startAuthorizationServer({
      clients: { 'svc-jwt': { publicKey: keys.publicKey } },
    });
    await using rs = await startProtectedServer(as);
    const oauth = new OAuthClient({
      grant: 'client_credentials',
      clientId: 'svc-jwt',
      privateKey: await exportPKCS8(keys.privateKey),
    });
    await using client = await connect(rs.url, oauth);
    await client.listTools();
    const [request] = as.to('/token');
    expect(request?.body.client_assertion_type).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    const claims = JSON.parse(
      Buffer.from(String(request?.body.client_assertion).split('.')[1] ?? '', 'base64url').toString(),
    );
    expect(claims).toMatchObject({ iss: 'svc-jwt', sub: 'svc-jwt', aud: as.issuer });
  });
});

describe('JWT bearer and enterprise-managed authorization', () => {
  it('exchanges a workload assertion for an access token, and does not retry a refused one', async () => {
    const workload = await generateKeyPair('ES256');
    await using as = await startAuthorizationServer({
      assertionKey: workload.publicKey,
      clients: { wif: {} },
    });
    await using rs = await startProtectedServer(as);
    const assertion = (audience: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer('https://idp.test')
        .setSubject('job-7')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(workload.privateKey);

    const good = new OAuthClient({
      grant: 'jwt_bearer',
      clientId: 'wif',
      assertion: () => assertion(as.issuer),
    });
    await using client = await connect(rs.url, good);
    await client.listTools();
    expect(as.to('/token')[0]?.body).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      client_id: 'wif',
    });

    const refused = new OAuthClient({
      grant: 'jwt_bearer',
      clientId: 'wif',
      assertion: await assertion('https://wrong.test'),
    });
    const error = await new Client({ name: 'wif', version: '1' })
      .connect(new StreamableHttpClientTransport({ url: rs.url, oauth: refused }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ details: { step: 'token', error: 'invalid_grant', status: 400 } });
    expect(as.to('/token')).toHaveLength(2); // one for each client: the refused grant was not tried again
  });

  it('exchanges an ID token at the identity provider for an ID-JAG, then that for an access token', async () => {
    await using idp = await startAuthorizationServer({ clients: { 'idp-client': {} } });
    await using as = await startAuthorizationServer({
      assertionKey: idp.publicKey,
      authMethods: ['client_secret_basic'],
      clients: { 'mcp-client': { secret: 'mcp-secret' } },
    });
    await using rs = await startProtectedServer(as);
    const idToken = await idp.sign({ sub: 'alice@example.test' }, { audience: 'idp-client' });
    const oauth = new OAuthClient({
      grant: 'enterprise_managed',
      clientId: 'mcp-client',
      clientSecret: 'mcp-secret',
      identityProvider: { tokenEndpoint: `${idp.origin}/token`, clientId: 'idp-client', idToken },
    });
    await using client = await connect(rs.url, oauth);
    await client.callTool('echo', { text: 'enterprise' });
    expect(idp.to('/token')[0]?.body).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      subject_token: idToken,
      audience: as.issuer,
      resource: rs.url,
      client_id: 'idp-client',
    });
    const [grant] = as.to('/token');
    expect(grant?.body).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      resource: rs.url,
    });
    expect(basicUser(grant?.headers.authorization)).toBe('mcp-client');
  });
});

describe('DPoP (RFC 9449)', () => {
  it('binds the token to a key and proves it on every request, with the nonces both servers ask for', async () => {
    await using as = await startAuthorizationServer({ dpop: true, dpopNonce: 'as-nonce-1' });
    await using rs = await startProtectedServer(as, { dpop: { nonce: 'rs-nonce-1' } });
    const oauth = new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser });
    await using client = await connect(rs.url, oauth);
    await client.callTool('echo', { text: 'bound' });
    await client.listTools();
    expect(await oauth.status(rs.url)).toMatchObject({ tokenType: 'DPoP' });
    // The token endpoint: a first proof without the nonce (refused), then one with it.
    const proofs = as.to('/token').map((request) => String(request.headers.dpop));
    const nonces = proofs.map((proof) => decodeJwt(proof).nonce);
    expect(nonces).toEqual([undefined, 'as-nonce-1']);
    // The MCP server saw only the DPoP scheme once a token was held, and a fresh proof each time.
    expect(rs.schemes.filter((scheme) => scheme !== 'none').every((scheme) => scheme === 'DPoP')).toBe(true);
    expect(new Set(rs.proofs).size).toBe(rs.proofs.length);
    expect(rs.proofs.length).toBeGreaterThanOrEqual(4);
  });

  it('sends Bearer tokens when the MCP server does not take DPoP, though the authorization server would', async () => {
    await using as = await startAuthorizationServer({ dpop: true });
    await using rs = await startProtectedServer(as);
    const oauth = new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser });
    await using client = await connect(rs.url, oauth);
    await client.listTools();
    expect(await oauth.status(rs.url)).toMatchObject({ tokenType: 'Bearer' });
    expect(as.to('/token')[0]?.headers.dpop).toBeUndefined();
  });
});

describe('the legacy HTTP+SSE transport', () => {
  it('signs in on the SSE stream and sends the token with every message', async () => {
    await using as = await startAuthorizationServer();
    // The server's resource is its SSE URL, so the token is for that audience.
    await using rs = await startProtectedServer(as, { resource: (url) => url.replace('/mcp', '/sse') });
    const oauth = new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser });
    const client = new Client({ name: 'oauth-sse', version: '1.0.0' }, { protocolVersion: '2024-11-05' });
    await client.connect(new SseClientTransport({ url: rs.url.replace('/mcp', '/sse'), oauth }));
    try {
      expect((await client.callTool('echo', { text: 'sse' })).content).toEqual([
        { type: 'text', text: 'sse' },
      ]);
    } finally {
      await client.close();
    }
    expect(as.to('/authorize')[0]?.query.resource).toBe(rs.url.replace('/mcp', '/sse'));
  });
});

describe('2025-03-26 servers', () => {
  it('uses /authorize, /token and /register at the server origin when it publishes no metadata', async () => {
    // Its authorization server is the MCP server's origin (the test's is reached through it): no `iss`.
    await using as = await startAuthorizationServer({ noMetadata: true, iss: 'omit' });
    await using rs = await startProtectedServer(as, { legacy: true });
    const oauth = new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser });
    await using client = await connect(rs.url, oauth);
    expect((await client.callTool('echo', { text: 'old' })).content).toEqual([{ type: 'text', text: 'old' }]);
    // Everything but the MCP endpoint reaches the authorization server through the MCP server's origin.
    expect(as.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/openid-configuration',
      'POST /register',
      'GET /authorize',
      'POST /token',
    ]);
    expect(as.to('/authorize')[0]?.query.code_challenge_method).toBe('S256');
    expect(as.to('/authorize')[0]?.query.resource).toBeUndefined();
  });

  /** One POST to the MCP endpoint, of a session at `revision` (its `MCP-Protocol-Version`). */
  const post = (oauth: OAuthClient, url: string, revision: string) =>
    oauth.send({
      resource: new URL(url),
      url: new URL(url),
      method: 'POST',
      headers: new Headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': revision,
      }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      fetch,
    });

  it('is not how a session at 2025-06-18 or later finds its authorization server: that needs resource metadata', async () => {
    await using as = await startAuthorizationServer({ noMetadata: true, iss: 'omit' });
    await using rs = await startProtectedServer(as, { legacy: true });
    const oauth = new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser });
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const error = await post(oauth, rs.url, revision).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OAuthError);
      expect(error).toMatchObject({ details: { step: 'discovery' } });
      expect((error as Error).message).toContain(`which protocol ${revision} requires`);
    }
    expect(as.requests.map((request) => request.path)).not.toContain(
      '/.well-known/oauth-authorization-server',
    );
    expect(as.to('/register')).toHaveLength(0);
    // A 2025-03-26 session's request is authorized at the origin.
    await post(oauth, rs.url, '2025-03-26').then((response) => response.body?.cancel());
    expect(as.to('/token')).toHaveLength(1);
  });

  it('refreshes its tokens from a later client too, at the default /token of the origin', async () => {
    await using as = await startAuthorizationServer({ noMetadata: true, iss: 'omit' });
    await using rs = await startProtectedServer(as, { legacy: true });
    const store = new MemoryOAuthStore();
    const signIn = () =>
      new OAuthClient({ redirectUrl: 'http://127.0.0.1:8976/callback', authorize: browser, store });
    {
      await using first = await connect(rs.url, signIn());
      await first.callTool('echo', { text: 'first' });
    }
    // Kept long enough ago to have expired; a later process (a new client on the same store) calls.
    const record = store.load(rs.url);
    if (record?.tokens === undefined) throw new Error('no tokens kept');
    store.save(rs.url, { ...record, tokens: { ...record.tokens, expiresAt: Date.now() - 1000 } });
    await using later = await connect(rs.url, signIn());
    expect((await later.callTool('echo', { text: 'later' })).content).toEqual([
      { type: 'text', text: 'later' },
    ]);
    // Refreshed, not signed in again: the origin has no metadata to look the issuer up by.
    expect(as.to('/token').map((request) => request.body.grant_type)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
    expect(as.to('/authorize')).toHaveLength(1);
  });

  it('presents a pre-registered client only when clientIssuer names the origin: no resource metadata binds it', async () => {
    await using as = await startAuthorizationServer({
      noMetadata: true,
      clients: { svc: { secret: 'svc-secret' } },
    });
    await using rs = await startProtectedServer(as, { legacy: true });
    const service = (extra: { clientIssuer?: string } = {}) =>
      new OAuthClient({ grant: 'client_credentials', clientId: 'svc', clientSecret: 'svc-secret', ...extra });
    const client = new Client({ name: 'oauth-grants', version: '1.0.0' });
    const error = await client
      .connect(new StreamableHttpClientTransport({ url: rs.url, oauth: service() }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ details: { step: 'registration' } });
    expect((error as Error).message).toContain('is bound to no authorization server yet');
    expect(as.to('/token')).toHaveLength(0);

    await using connected = await connect(rs.url, service({ clientIssuer: new URL(rs.url).origin }));
    expect((await connected.callTool('echo', { text: 'old' })).content).toEqual([
      { type: 'text', text: 'old' },
    ]);
    expect(basicUser(as.to('/token')[0]?.headers.authorization)).toBe('svc');
  });
});
