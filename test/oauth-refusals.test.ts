// What the OAuth client refuses (issue 21), on the wire against toolwire's resource server and the test
// authorization server: an authorization response with a wrong, missing, empty or merely equivalent `iss`
// (RFC 9207, compared as is), metadata for another issuer (RFC 8414 §3.3), an authorization server
// without PKCE, protected resource metadata for another resource, plain-HTTP authorization servers off
// this machine, an MCP server over plain HTTP off this machine (no token is obtained for it, none held is
// sent to it), and a redirect that is not the redirect URI. Each refusal is an OAuthError and stops the flow before the
// step it guards: no token request, no authorization request, no request at all.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  MemoryOAuthStore,
  OAuthClient,
  OAuthError,
  StreamableHttpClientTransport,
  type AuthorizeHandler,
  type OAuthClientOptions,
} from '../src/transports/http-client/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServerOptions,
  type TestAuthorizationServer,
} from './_authorization-server.js';
import { startProtectedServer, type ProtectedServerOptions } from './_protected-server.js';

const REDIRECT = 'http://127.0.0.1:8976/callback';

/** The token request the authorization server answered (its access tokens are JWTs: `eyJ…`). */
const tokenRequestOf = (requests: { path: string; body: Record<string, string> }[]) =>
  requests.find((request) => request.path === '/token' && request.body.grant_type === 'authorization_code');

const browser: AuthorizeHandler = async (url) => {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  return response.headers.get('location') ?? '';
};

/** Connects through an OAuthClient to a fresh pair of servers; resolves with the outcome and the servers. */
async function attempt(
  asOptions: AuthorizationServerOptions,
  rsOptions: ProtectedServerOptions | ((as: TestAuthorizationServer) => ProtectedServerOptions) = {},
  oauthOptions: Partial<OAuthClientOptions> = {},
) {
  const as = await startAuthorizationServer(asOptions);
  const rs = await startProtectedServer(as, typeof rsOptions === 'function' ? rsOptions(as) : rsOptions);
  const oauth = new OAuthClient({
    redirectUrl: REDIRECT,
    authorize: browser,
    ...oauthOptions,
  } as OAuthClientOptions);
  const client = new Client({ name: 'oauth-refusals', version: '1.0.0' });
  const outcome = await client
    .connect(new StreamableHttpClientTransport({ url: rs.url, oauth }))
    .then(() => client.listTools())
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  await client.close();
  return {
    outcome,
    as,
    rs,
    async [Symbol.asyncDispose]() {
      await rs.close();
      await as.close();
    },
  };
}

describe('OAuth client refusals', () => {
  it.each([
    ['names another issuer', { iss: 'wrong' }],
    ['omits iss though the server says it sends one', { iss: 'omit' }],
    ['sends the issuer with a trailing slash (equal only after normalization)', { iss: 'trailing-slash' }],
    ['sends an empty iss (not an absent one)', { iss: 'empty' }],
    [
      'sends an empty iss, from a server that does not say it sends one',
      { iss: 'empty', issNotAdvertised: true },
    ],
  ] as const)(
    'refuses an authorization response that %s, before redeeming the code',
    async (_why, options) => {
      await using run = await attempt(options);
      expect(run.outcome).toBeInstanceOf(OAuthError);
      expect(run.outcome).toMatchObject({ code: 'AUTHORIZATION_FAILED', details: { step: 'authorization' } });
      expect(run.as.to('/authorize')).toHaveLength(1);
      expect(run.as.to('/token')).toHaveLength(0);
    },
  );

  it('accepts a response without iss from a server that does not say it sends one', async () => {
    await using run = await attempt({ iss: 'omit', issNotAdvertised: true });
    expect(run.outcome).toBeUndefined();
    expect(run.as.to('/token')).toHaveLength(1);
  });

  it('refuses metadata naming another issuer, and uses none of its endpoints', async () => {
    await using run = await attempt({ metadataIssuer: 'https://attacker.example.test' });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect((run.outcome as OAuthError).message).toContain('must be for the issuer');
    expect(run.as.requests.map((request) => request.path)).toEqual([
      '/.well-known/oauth-authorization-server',
    ]);
  });

  it.each([
    ['with a trailing slash the issuer lacks', { metadataIssuer: (issuer: string) => `${issuer}/` }, {}],
    [
      'without the trailing slash the resource metadata gives the issuer',
      {},
      (as: TestAuthorizationServer) => ({ authorizationServers: [`${as.issuer}/`] }),
    ],
  ] as const)(
    'refuses metadata naming its issuer %s (equal only as URLs), and uses none of its endpoints',
    async (_why, asOptions, rsOptions) => {
      await using run = await attempt(asOptions, rsOptions);
      expect(run.outcome).toBeInstanceOf(OAuthError);
      expect(run.outcome).toMatchObject({ details: { step: 'discovery' } });
      expect((run.outcome as OAuthError).message).toContain('must be for the issuer');
      expect(run.as.to('/register')).toHaveLength(0);
      expect(run.as.to('/authorize')).toHaveLength(0);
      expect(run.as.to('/token')).toHaveLength(0);
    },
  );

  it('refuses an authorization server without PKCE S256, before registering or sending anyone there', async () => {
    await using run = await attempt({ noPkce: true });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect((run.outcome as OAuthError).message).toContain('PKCE');
    expect(run.as.to('/register')).toHaveLength(0);
    expect(run.as.to('/authorize')).toHaveLength(0);
  });

  it('refuses resource metadata for another resource, and never contacts its authorization server', async () => {
    await using run = await attempt({}, { resource: (url) => url.replace('/mcp', '/other') });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect((run.outcome as OAuthError).message).toMatch(/is for "http:\/\/127\.0\.0\.1:\d+\/other", not for/);
    expect(run.as.requests).toHaveLength(0);
  });

  it('refuses a plain-HTTP authorization server off this machine', async () => {
    await using run = await attempt({}, { authorizationServers: ['http://as.example.test'] });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect((run.outcome as OAuthError).message).toContain('must use HTTPS');
    expect(run.as.requests).toHaveLength(0);
  });

  it.each([
    ['refuses to obtain a token for', { allowInsecureHttp: false, held: false }],
    ['refuses to send a token it holds to', { allowInsecureHttp: false, held: true }],
    ['with allowInsecureHttp, authorizes', { allowInsecureHttp: true, held: false }],
  ] as const)(
    '%s an MCP server over plain HTTP off this machine (its challenge naming no metadata URL)',
    async (_what, { allowInsecureHttp, held }) => {
      await using as = await startAuthorizationServer();
      const remote = 'http://mcp.example.test/mcp';
      await using rs = await startProtectedServer(as, { resource: () => remote });
      // The network: mcp.example.test is the resource server, reached over plain HTTP; a bare Bearer
      // challenge sends the client to the well-known URLs (http://mcp.example.test/.well-known/…).
      const sent: { url: string; authorization: string | null }[] = [];
      const network: typeof fetch = async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        sent.push({ url: url.href, authorization: new Headers(init?.headers).get('authorization') });
        if (url.host === 'mcp.example.test') url.host = new URL(rs.url).host;
        const response = await fetch(url, init);
        if (response.status !== 401) return response;
        await response.body?.cancel();
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
      };
      const store = new MemoryOAuthStore();
      if (held)
        store.save(remote, { tokens: { accessToken: 'held', tokenType: 'Bearer', issuer: as.issuer } });
      const oauth = new OAuthClient({
        redirectUrl: REDIRECT,
        authorize: browser,
        fetch: network,
        store,
        allowInsecureHttp,
      });
      const client = new Client({ name: 'oauth-refusals', version: '1.0.0' });
      const outcome = await client
        .connect(new StreamableHttpClientTransport({ url: remote, oauth, fetch: network }))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      await client.close();
      const withToken = sent.filter((request) => request.authorization !== null);
      if (allowInsecureHttp) {
        expect(outcome).toBeUndefined();
        expect(withToken.length).toBeGreaterThan(0);
        return;
      }
      expect(outcome).toBeInstanceOf(OAuthError);
      expect(outcome).toMatchObject({ details: { step: 'discovery' } });
      expect((outcome as OAuthError).message).toContain('must use HTTPS');
      expect(withToken).toEqual([]);
      expect(sent.map((request) => request.url)).toEqual(held ? [] : [remote]);
      expect(as.requests).toHaveLength(0);
    },
  );

  it('refuses a redirect that is not the redirect URI', async () => {
    const elsewhere: AuthorizeHandler = async (url) =>
      (await browser(url, AbortSignal.timeout(5_000))).toString().replace('/callback', '/other');
    await using run = await attempt({}, {}, { authorize: elsewhere });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect((run.outcome as OAuthError).message).toContain('not the redirect URI');
    expect(run.as.to('/token')).toHaveLength(0);
  });

  it('refuses a token response it cannot use, and the error never shows the token', async () => {
    await using run = await attempt({ tokenType: 'mac' });
    expect(run.outcome).toBeInstanceOf(OAuthError);
    expect(run.outcome).toMatchObject({ details: { step: 'token' } });
    expect((run.outcome as OAuthError).message).toContain('token_type');
    const issued = tokenRequestOf(run.as.requests);
    expect(issued).toBeDefined();
    expect(inspect(run.outcome, { depth: 10 })).not.toContain('eyJ');
    expect(JSON.stringify(run.outcome)).not.toContain('eyJ');
  });

  it('refuses options that cannot work, at construction', () => {
    const make = (options: object) => () => new OAuthClient(options as OAuthClientOptions);
    expect(make({ redirectUrl: REDIRECT })).toThrow(/authorize handler/);
    expect(make({ redirectUrl: 'http://app.example.test/cb', authorize: browser })).toThrow(/redirectUrl/);
    expect(make({ grant: 'client_credentials', clientId: 'x' })).toThrow(/clientSecret or privateKey/);
    expect(make({ redirectUrl: REDIRECT, authorize: browser, clientMetadataUrl: 'http://x.test/c' })).toThrow(
      /HTTPS/,
    );
    expect(make({ grant: 'device' })).toThrow(/Unknown grant/);
  });
});
