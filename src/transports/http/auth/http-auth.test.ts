import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { isReply, toResponse, type Reply } from '../http-exchange.js';
import { describe, expect, it } from 'vitest';
import { HttpAuth, type HttpAuthOptions } from './http-auth.js';
import { jwtVerifier } from './jwt-verifier.js';
import { apiKeyVerifier } from './token-verifier.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ISSUER = 'https://auth.example.com';

const keys = apiKeyVerifier({
  'key-reader': { subject: 'reader', scopes: ['tools:read'] },
  'key-writer': { subject: 'writer', scopes: ['tools:read', 'tools:call'], clientId: 'cli' },
});

function auth(options: Partial<HttpAuthOptions> = {}): HttpAuth {
  return new HttpAuth(
    { resource: RESOURCE, authorizationServers: [ISSUER], verifier: keys, ...options },
    '/mcp',
  );
}

function post(headers: Record<string, string> = {}, url = RESOURCE): Request {
  return new Request(url, { method: 'POST', headers });
}

async function refused(
  result: unknown,
): Promise<{ status: number; challenge: string | null; body: unknown }> {
  expect(isReply(result)).toBe(true);
  const response = toResponse(result as Reply);
  expect(response.headers.get('content-type')).toBe('application/json');
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: await response.json(),
  };
}

describe('HttpAuth.authenticate', () => {
  it('returns the principal of a good bearer token (scheme case-insensitive)', async () => {
    expect(await auth().authenticate(post({ authorization: 'Bearer key-reader' }))).toEqual({
      subject: 'reader',
      scopes: ['tools:read'],
    });
    expect(await auth().authenticate(post({ authorization: 'bearer  key-writer ' }))).toMatchObject({
      subject: 'writer',
      clientId: 'cli',
    });
  });

  it('answers a request without a credential with 401 and a challenge without error', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: '   ' },
      { authorization: 'Basic dTpw' },
    ];
    for (const headers of variants) {
      expect(await refused(await auth().authenticate(post(headers)))).toEqual({
        status: 401,
        challenge: `Bearer resource_metadata="${PRM}"`,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Unauthorized: authorization required' },
        },
      });
    }
  });

  it('names requiredScopes, else scopesSupported, in the 401 challenge', async () => {
    const withSupported = await refused(await auth({ scopesSupported: ['tools:read'] }).authenticate(post()));
    expect(withSupported.challenge).toBe(`Bearer resource_metadata="${PRM}", scope="tools:read"`);
    const withRequired = await refused(
      await auth({
        scopesSupported: ['tools:read'],
        requiredScopes: ['tools:read', 'tools:call'],
      }).authenticate(post()),
    );
    expect(withRequired.challenge).toBe(`Bearer resource_metadata="${PRM}", scope="tools:read tools:call"`);
  });

  it.each([
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearer a"b',
    'Bearer key-reader, Bearer key-writer',
    'Bearer=abc',
  ])('answers the malformed credential %j with 401 invalid_request', async (authorization) => {
    expect(await refused(await auth().authenticate(post({ authorization })))).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${PRM}", error="invalid_request", error_description="malformed Authorization header"`,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Unauthorized: malformed Authorization header' },
      },
    });
  });

  it('answers a refused token with 401 invalid_token and the verifier’s description', async () => {
    expect(await refused(await auth().authenticate(post({ authorization: 'Bearer key-nobody' })))).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="unknown API key"`,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthorized: unknown API key' } },
    });
  });

  it('hides the message of any other verifier error, and hands the error to onVerifierError', async () => {
    const seen: unknown[] = [];
    const failing = auth({
      verifier: () => Promise.reject(new Error('db password=hunter2 rejected')),
      onVerifierError: (e) => seen.push(e),
    });
    const { status, challenge, body } = await refused(
      await failing.authenticate(post({ authorization: 'Bearer t' })),
    );
    expect(status).toBe(401);
    expect(challenge).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="the access token could not be verified"`,
    );
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(seen).toEqual([new Error('db password=hunter2 rejected')]);
  });

  it('refuses a principal that has already expired', async () => {
    const stale = auth({
      verifier: () => Promise.resolve({ subject: 's', scopes: [], expiresAt: Date.now() - 1 }),
    });
    expect(
      (await refused(await stale.authenticate(post({ authorization: 'Bearer t' })))).challenge,
    ).toContain('error="invalid_token", error_description="token expired"');
  });

  it('answers a principal without the required scopes with 403 insufficient_scope', async () => {
    const strict = auth({ requiredScopes: ['tools:read', 'tools:call'] });
    expect(await refused(await strict.authenticate(post({ authorization: 'Bearer key-reader' })))).toEqual({
      status: 403,
      challenge: `Bearer resource_metadata="${PRM}", scope="tools:read tools:call", error="insufficient_scope", error_description="the token lacks a required scope"`,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Forbidden: the token lacks a required scope' },
      },
    });
    expect(await strict.authenticate(post({ authorization: 'Bearer key-writer' }))).toMatchObject({
      subject: 'writer',
    });
  });

  it('refuses a token in the query string with 400, even beside a good header, without calling the verifier', async () => {
    let calls = 0;
    const counting = auth({ verifier: (t, r) => (calls++, keys(t, r)) });
    const request = post({ authorization: 'Bearer key-writer' }, `${RESOURCE}?access_token=key-writer`);
    expect(await refused(await counting.authenticate(request))).toEqual({
      status: 400,
      challenge: `Bearer resource_metadata="${PRM}", error="invalid_request", error_description="access tokens are accepted in the Authorization header only"`,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Bad request: access tokens are accepted in the Authorization header only',
        },
      },
    });
    expect(calls).toBe(0);
  });

  it('calls the verifier once per request with the token and the request', async () => {
    const calls: string[] = [];
    const counting = auth({ verifier: (t, r) => (calls.push(`${t} ${r.method}`), keys(t, r)) });
    await counting.authenticate(post({ authorization: 'Bearer key-reader' }));
    expect(calls).toEqual(['key-reader POST']);
  });

  it('with a cache, verifies a token once and still checks scopes on every request', async () => {
    const calls: string[] = [];
    const cached = auth({
      cache: { ttlMs: 60_000 },
      requiredScopes: ['tools:call'],
      verifier: (t, r) => (calls.push(t), keys(t, r)),
    });
    for (let i = 0; i < 3; i++) {
      expect(await cached.authenticate(post({ authorization: 'Bearer key-writer' }))).toMatchObject({
        subject: 'writer',
      });
      expect(await cached.authenticate(post({ authorization: 'Bearer key-reader' }))).toHaveProperty(
        'status',
        403,
      );
      expect(await cached.authenticate(post({ authorization: 'Bearer key-nobody' }))).toHaveProperty(
        'status',
        401,
      );
    }
    expect(calls).toEqual(['key-writer', 'key-reader', 'key-nobody', 'key-nobody', 'key-nobody']);
  });

  it('builds resource_metadata from the request origin when no resource is set', async () => {
    const local = new HttpAuth({ authorizationServers: [ISSUER], verifier: keys }, '/mcp');
    const { challenge } = await refused(await local.authenticate(post({}, 'http://localhost:3000/mcp')));
    expect(challenge).toBe(
      'Bearer resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('works end to end with JWT access tokens for this resource only', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const jwt = (aud: string) =>
      new SignJWT({ scope: 'tools:read tools:call' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(ISSUER)
        .setAudience(aud)
        .setSubject('alice')
        .setExpirationTime('1m')
        .sign(privateKey);
    const jwtAuth = auth({
      requiredScopes: ['tools:call'],
      verifier: jwtVerifier({ jwks: { keys: [jwk] }, issuer: ISSUER, audience: RESOURCE }),
    });
    expect(
      await jwtAuth.authenticate(post({ authorization: `Bearer ${await jwt(RESOURCE)}` })),
    ).toMatchObject({
      subject: 'alice',
      scopes: ['tools:read', 'tools:call'],
    });
    const other = await jwtAuth.authenticate(
      post({ authorization: `Bearer ${await jwt('https://other/mcp')}` }),
    );
    expect((await refused(other)).challenge).toBe(
      `Bearer resource_metadata="${PRM}", scope="tools:call", error="invalid_token", error_description="token audience does not match this server"`,
    );
  });
});

describe('HttpAuth.insufficientScope', () => {
  it('asks for step-up with 403 and the given scopes', async () => {
    expect(await refused(auth().insufficientScope(['files:write'], 'writing needs files:write'))).toEqual({
      status: 403,
      challenge: `Bearer resource_metadata="${PRM}", scope="files:write", error="insufficient_scope", error_description="writing needs files:write"`,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Forbidden: writing needs files:write' },
      },
    });
  });

  it('takes the origin from the request when no resource is set', async () => {
    const local = new HttpAuth({ authorizationServers: [ISSUER], verifier: keys }, '/mcp');
    const { challenge } = await refused(
      local.insufficientScope(['a'], 'd', post({}, 'http://127.0.0.1:9/mcp')),
    );
    expect(challenge).toBe(
      'Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="a", error="insufficient_scope", error_description="d"',
    );
  });
});

describe('HttpAuth.metadata', () => {
  const options = {
    authorizationServers: [ISSUER],
    scopesSupported: ['tools:read'],
    resourceName: 'Example',
    verifier: keys,
  };

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])(
    'serves the document on GET %s',
    async (path) => {
      const response = new HttpAuth(options, '/mcp').metadata(
        new Request(`http://localhost:3000${path}`),
        path,
      );
      expect(response?.status).toBe(200);
      const headers: Record<string, string> = {};
      if (response) toResponse(response).headers.forEach((value, name) => (headers[name] = value));
      expect(headers).toEqual({
        'content-type': 'application/json',
        'cache-control': 'max-age=300',
        'access-control-allow-origin': '*',
      });
      expect(await response?.json()).toEqual({
        resource: 'http://localhost:3000/mcp',
        authorization_servers: [ISSUER],
        scopes_supported: ['tools:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'Example',
      });
    },
  );

  it('also serves the path derived from a configured resource (behind a proxy)', async () => {
    const proxied = new HttpAuth({ ...options, resource: 'https://h.example/api/mcp' }, '/mcp');
    const path = '/.well-known/oauth-protected-resource/api/mcp';
    const response = proxied.metadata(new Request(`http://10.0.0.5${path}`), path);
    expect(await response?.json()).toMatchObject({ resource: 'https://h.example/api/mcp' });
  });

  it('answers HEAD without a body, OPTIONS as a CORS preflight, other methods with 405', async () => {
    const metadata = new HttpAuth(options, '/mcp');
    const path = '/.well-known/oauth-protected-resource/mcp';
    const url = `http://localhost:3000${path}`;
    const head = metadata.metadata(new Request(url, { method: 'HEAD' }), path);
    expect([head?.status, head && toResponse(head).body, head?.headers.get('cache-control')]).toEqual([
      200,
      null,
      'max-age=300',
    ]);
    const options204 = metadata.metadata(new Request(url, { method: 'OPTIONS' }), path);
    expect(options204?.status).toBe(204);
    expect(options204?.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    const post405 = metadata.metadata(new Request(url, { method: 'POST' }), path);
    expect(post405?.status).toBe(405);
    expect(post405?.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await post405?.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Method not allowed' },
    });
  });

  it('ignores other paths', () => {
    const metadata = new HttpAuth(options, '/mcp');
    for (const path of [
      '/mcp',
      '/.well-known/oauth-protected-resource/other',
      '/.well-known/oauth-authorization-server',
    ])
      expect(metadata.metadata(new Request(`http://localhost:3000${path}`), path)).toBeUndefined();
  });

  it('needs an authorization server and an endpoint path', () => {
    expect(() => new HttpAuth({ authorizationServers: [], verifier: keys }, '/mcp')).toThrow(
      /authorization server/,
    );
    expect(() => new HttpAuth({ authorizationServers: [ISSUER], verifier: keys }, 'mcp')).toThrow(/path/);
  });
});
