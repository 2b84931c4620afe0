import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
import { InvalidTokenError, type TokenVerifier } from './token-verifier.js';

const ISSUER = 'https://auth.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';
const request = new Request(AUDIENCE, { method: 'POST' });

interface Signer {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: 'RS256' | 'ES256', kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

let rsa: Signer;
let ec: Signer;
let stranger: Signer;
let jwksServer: Server;
let jwksUrl: string;
let jwksFetches = 0;

beforeAll(async () => {
  [rsa, ec, stranger] = await Promise.all([
    signer('RS256', 'rsa-1'),
    signer('ES256', 'ec-1'),
    signer('ES256', 'ec-1'),
  ]);
  jwksServer = createServer((_req, res) => {
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [rsa.jwk, ec.jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed by `key`: valid for this server unless `claims` override (undefined removes a claim). */
function token(
  key: Signer,
  claims: JWTPayload = {},
  header: { alg?: string; kid?: string } = {},
): Promise<string> {
  const payload = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'user-1',
    iat: now(),
    exp: now() + 300,
    scope: 'tools:read tools:call',
  };
  return new SignJWT({ ...payload, ...claims })
    .setProtectedHeader({ alg: key.jwk.alg ?? 'ES256', kid: key.jwk.kid, ...header })
    .sign(key.privateKey);
}

function local(options: Partial<JwtVerifierOptions> = {}): TokenVerifier {
  return jwtVerifier({ jwks: { keys: [rsa.jwk, ec.jwk] }, issuer: ISSUER, audience: AUDIENCE, ...options });
}

async function refusal(verifier: TokenVerifier, jwt: string): Promise<InvalidTokenError> {
  const error: unknown = await verifier(jwt, request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return error as InvalidTokenError;
}

/** A JWT with the given header and payload and a junk signature (for `none` and HS256). */
function unsigned(header: object, payload: object, signature = ''): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

describe('jwtVerifier', () => {
  it('maps a valid token to a principal (keys fetched from a jwks_uri)', async () => {
    const verifier = jwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
    const jwt = await token(rsa, { client_id: 'app-1', roles: ['admin'], tenant: 't1' });
    const principal = await verifier(jwt, request);
    expect(principal).toMatchObject({
      subject: 'user-1',
      scopes: ['tools:read', 'tools:call'],
      roles: ['admin'],
      clientId: 'app-1',
      claims: { tenant: 't1', iss: ISSUER, aud: AUDIENCE },
    });
    expect(principal.expiresAt).toBe((principal.claims?.['exp'] as number) * 1000);
    await verifier(await token(ec), request); // second key, same cached set
    expect(jwksFetches).toBe(1);
  });

  it('reads scopes from scp (string or array) and the client from azp', async () => {
    const verifier = local();
    const fromArray = await verifier(
      await token(ec, { scope: undefined, scp: ['a', 'b'], azp: 'app-2' }),
      request,
    );
    expect(fromArray).toMatchObject({ scopes: ['a', 'b'], clientId: 'app-2' });
    const fromString = await verifier(await token(ec, { scope: undefined, scp: 'c d' }), request);
    expect(fromString.scopes).toEqual(['c', 'd']);
    const custom = local({ scopeClaim: 'permissions', rolesClaim: 'groups' });
    expect(await custom(await token(ec, { permissions: ['x'], groups: 'g1 g2' }), request)).toMatchObject({
      scopes: ['x'],
      roles: ['g1', 'g2'],
    });
  });

  it('accepts one of several issuers and audiences, and a custom subject', async () => {
    const verifier = local({
      issuer: ['https://other.example.com', ISSUER],
      audience: ['https://x.example.com', AUDIENCE],
      subject: (claims) => (typeof claims['oid'] === 'string' ? claims['oid'] : undefined),
    });
    expect((await verifier(await token(ec, { oid: 'object-9' }), request)).subject).toBe('object-9');
  });

  it.each([
    ['expired', { exp: now() - 60 }, 'token expired'],
    ['not yet valid', { nbf: now() + 120 }, 'token is not yet valid'],
    [
      'for another audience',
      { aud: 'https://evil.example.com/mcp' },
      'token audience does not match this server',
    ],
    ['from another issuer', { iss: 'https://evil.example.com' }, 'token issuer is not trusted'],
    ['without a subject', { sub: undefined }, 'token has no subject'],
    ['without an audience', { aud: undefined }, 'token has no "aud" claim'],
  ])('refuses a token %s', async (_name, claims, description) => {
    expect((await refusal(local(), await token(ec, claims))).message).toBe(description);
  });

  it('tolerates small clock skew (5 s by default)', async () => {
    await expect(local()(await token(ec, { exp: now() - 2 }), request)).resolves.toMatchObject({
      subject: 'user-1',
    });
    expect(
      (await refusal(local({ clockToleranceSec: 0 }), await token(ec, { exp: now() - 2 }))).message,
    ).toBe('token expired');
  });

  it('refuses a token without exp, and missing required claims', async () => {
    expect((await refusal(local(), await token(ec, { exp: undefined }))).message).toBe(
      'token has no "exp" claim',
    );
    expect((await refusal(local({ requiredClaims: ['jti'] }), await token(ec))).message).toBe(
      'token has no "jti" claim',
    );
  });

  it('refuses a signature by another key with the same kid, and an unknown kid', async () => {
    const forged = await refusal(local(), await token(stranger));
    expect(forged.message).toBe('token signature is invalid');
    const unknown = await refusal(local(), await token(stranger, {}, { kid: 'nobody' }));
    expect(unknown.message).toBe('token signing key is unknown');
    const remote = await refusal(
      jwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE }),
      await token(stranger, {}, { kid: 'nobody' }),
    );
    expect(remote.message).toBe('token signing key is unknown');
  });

  it('refuses alg none and HS256 by default', async () => {
    const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', exp: now() + 300, scope: 'a' };
    const none = unsigned({ alg: 'none', typ: 'JWT' }, payload);
    expect((await refusal(local(), none)).message).toBe('token algorithm is not accepted');
    expect((await refusal(local({ algorithms: ['none', 'ES256'] }), none)).message).toBe(
      'token algorithm is not accepted',
    );
    const secret = new TextEncoder().encode('a-shared-secret-that-is-long-enough!');
    const hs = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: 'ec-1' }).sign(secret);
    expect((await refusal(local(), hs)).message).toBe('token algorithm is not accepted');
  });

  it('refuses malformed tokens with a description that leaks nothing', async () => {
    for (const bad of [
      'not-a-jwt',
      'a.b.c',
      unsigned({ alg: 'ES256' }, { sub: 'x' }, 'sig').slice(0, -1) + '!',
    ]) {
      const error = await refusal(local(), bad);
      expect(error.message).toBe('token is malformed');
      expect(error.cause).toBeDefined();
    }
  });

  it('requires exactly one key source, an issuer and an audience', () => {
    expect(() => jwtVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/exactly one of jwksUrl, jwks/);
    expect(() => jwtVerifier({ jwks: { keys: [] }, jwksUrl, issuer: ISSUER, audience: AUDIENCE })).toThrow();
    expect(() => jwtVerifier({ jwks: { keys: [] }, issuer: ISSUER, audience: [] })).toThrow(/audience/);
    expect(() => jwtVerifier({ jwks: { keys: [] }, issuer: '', audience: AUDIENCE })).toThrow(/issuer/);
  });
});
