// A test authorization server: an ES256 key whose JWKS is served over real HTTP on 127.0.0.1, and access
// tokens signed with it (or with a key nobody published, for forgeries).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export const ISSUER = 'https://auth.example.test';

export interface TokenOptions {
  scope?: string;
  roles?: string[];
  audience?: string;
  issuer?: string;
  /** A jose duration ('5m') or an absolute `exp` in seconds since the epoch. */
  expiresIn?: string | number;
  /** Sign with a key that is not in the JWKS. */
  forged?: boolean;
}

export interface TestIssuer {
  readonly jwksUrl: string;
  /** A signed access token for `subject` and `audience` (unless the options say otherwise). */
  token(subject: string, audience: string, options?: TokenOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<TestIssuer> {
  const pair = await generateKeyPair('ES256');
  const other = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sign = (key: SigningKey, subject: string, audience: string, options: TokenOptions) => {
    const claims: JWTPayload = { scope: options.scope ?? '' };
    if (options.roles) claims.roles = options.roles;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject(subject)
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? audience)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(key);
  };
  return {
    jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    token: (subject, audience, options = {}) =>
      sign(options.forged ? other : pair.privateKey, subject, audience, options),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
