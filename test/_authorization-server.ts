// A small OAuth 2.1 authorization server for the OAuth client's tests, on 127.0.0.1 over real HTTP:
// metadata (RFC 8414 or OpenID Connect Discovery, an issuer with or without a path), dynamic registration,
// an authorization endpoint that approves at once (redirecting with code, state and iss), and a token
// endpoint for the authorization code (PKCE S256 checked), refresh, client credentials (basic, post,
// private_key_jwt), JWT bearer and token exchange grants, with DPoP (RFC 9449, nonces) and JWT access tokens
// signed with its key (JWKS at /jwks). Options make it misbehave the ways a client must refuse. Every
// request is recorded for assertions.
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SignJWT,
  calculateJwkThumbprint,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export interface TestClient {
  secret?: string;
  /** The client's public key (private_key_jwt). */
  publicKey?: KeyPair['publicKey'];
  redirectUris?: string[];
  authMethod?: string;
}

export interface AuthorizationServerOptions {
  /** A path of the issuer (`/tenant1`), served with path-inserted metadata URLs. */
  issuerPath?: string;
  /**
   * Which discovery document is served: RFC 8414 (default), OpenID Connect Discovery with the well-known
   * part inserted before the issuer's path, or appended to it (OIDC's own rule).
   */
  discovery?: 'oauth' | 'openid' | 'openid-appended';
  /** Serve no metadata at all (the 2025-03-26 defaults: /authorize, /token, /register at the root). */
  noMetadata?: boolean;
  /** Leave code_challenge_methods_supported out of the metadata. */
  noPkce?: boolean;
  /** What `iss` the redirect carries (default: the issuer). */
  iss?: 'correct' | 'wrong' | 'omit' | 'trailing-slash' | 'empty';
  /** Leave authorization_response_iss_parameter_supported out. */
  issNotAdvertised?: boolean;
  /** The `issuer` the metadata names, or what makes it of the real one (default: the real one). */
  metadataIssuer?: string | ((issuer: string) => string);
  registration?: boolean;
  clientIdMetadataDocuments?: boolean;
  authMethods?: string[];
  scopesSupported?: string[];
  /** Issue refresh tokens (default true). */
  refreshTokens?: boolean;
  /** Access token lifetime in seconds (default 300). */
  expiresIn?: number;
  /** Advertise and take DPoP proofs (ES256). */
  dpop?: boolean;
  /** Require this DPoP nonce at the token endpoint. */
  dpopNonce?: string;
  /** Pre-registered clients by id. */
  clients?: Record<string, TestClient>;
  /** The scope granted for a requested one (default: as requested). */
  grant?: (requested: string | undefined) => string | undefined;
  /** The `token_type` of the access tokens it issues (default: Bearer, or DPoP when bound). */
  tokenType?: string;
  /** Verifies `assertion`s of the JWT bearer grant (default: none accepted). */
  assertionKey?: KeyPair['publicKey'];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestAuthorizationServer {
  readonly origin: string;
  readonly issuer: string;
  readonly jwksUrl: string;
  readonly requests: RecordedRequest[];
  readonly clients: Map<string, TestClient>;
  /** The requests to `path` (no query). */
  to(path: string): RecordedRequest[];
  /** Signs a JWT with this server's key (for assertions it hands out, e.g. an ID token). */
  sign(
    claims: JWTPayload,
    options?: { audience?: string; typ?: string; expiresIn?: string },
  ): Promise<string>;
  readonly publicKey: KeyPair['publicKey'];
  /** Forgets every refresh token it issued (a refresh then fails with invalid_grant). */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface CodeGrant {
  clientId: string;
  redirectUri: string;
  challenge: string | undefined;
  scope: string | undefined;
  resource: string | undefined;
}

export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<TestAuthorizationServer> {
  const keys = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'as-key', alg: 'ES256', use: 'sig' };
  const clients = new Map(Object.entries(options.clients ?? {}));
  const codes = new Map<string, CodeGrant>();
  const refreshTokens = new Map<
    string,
    { clientId: string; scope: string | undefined; resource: string | undefined; jkt?: string }
  >();
  const requests: RecordedRequest[] = [];
  const usedJtis = new Set<string>();
  let origin = '';
  const path = options.issuerPath ?? '';
  const issuer = () => `${origin}${path}`;
  const endpoint = (name: string) => `${origin}${path}/${name}`;

  const sign = (claims: JWTPayload, extra: { audience?: string; typ?: string; expiresIn?: string } = {}) => {
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'as-key', ...(extra.typ ? { typ: extra.typ } : {}) })
      .setIssuer(issuer())
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(extra.expiresIn ?? `${options.expiresIn ?? 300}s`);
    if (extra.audience !== undefined) jwt = jwt.setAudience(extra.audience);
    return jwt.sign(keys.privateKey);
  };

  const metadata = () => ({
    issuer:
      typeof options.metadataIssuer === 'function'
        ? options.metadataIssuer(issuer())
        : (options.metadataIssuer ?? issuer()),
    authorization_endpoint: endpoint('authorize'),
    token_endpoint: endpoint('token'),
    ...(options.registration === false ? {} : { registration_endpoint: endpoint('register') }),
    jwks_uri: `${origin}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: options.authMethods ?? [
      'none',
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
    ],
    ...(options.noPkce ? {} : { code_challenge_methods_supported: ['S256'] }),
    ...(options.issNotAdvertised ? {} : { authorization_response_iss_parameter_supported: true }),
    ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
    ...(options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
  });

  const metadataPaths = (): string[] => {
    if (options.noMetadata) return [];
    if (options.discovery === 'openid-appended') return [`${path}/.well-known/openid-configuration`];
    if (options.discovery === 'openid') {
      return path ? [`/.well-known/openid-configuration${path}`] : ['/.well-known/openid-configuration'];
    }
    return [`/.well-known/oauth-authorization-server${path}`];
  };

  /** The client a token request authenticates as, or a refusal. */
  const authenticate = async (
    req: IncomingMessage,
    body: Record<string, string>,
  ): Promise<string | { error: string }> => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id = '', secret = ''] = Buffer.from(basic[1] ?? '', 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      const client = clients.get(id);
      return client?.secret !== undefined && client.secret === secret ? id : { error: 'invalid_client' };
    }
    if (body.client_assertion !== undefined) {
      if (body.client_assertion_type !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
        return { error: 'invalid_client' };
      const id = body.client_id ?? '';
      const claims = JSON.parse(
        Buffer.from(body.client_assertion.split('.')[1] ?? '', 'base64url').toString(),
      ) as JWTPayload;
      const client = clients.get(claims.iss ?? id);
      if (client?.publicKey === undefined) return { error: 'invalid_client' };
      try {
        const { payload } = await jwtVerify(body.client_assertion, client.publicKey, { audience: issuer() });
        return payload.sub === payload.iss && typeof payload.iss === 'string'
          ? payload.iss
          : { error: 'invalid_client' };
      } catch {
        return { error: 'invalid_client' };
      }
    }
    const id = body.client_id ?? '';
    const client = clients.get(id);
    // A Client ID Metadata Document's URL is a public client's id.
    if (client === undefined && options.clientIdMetadataDocuments && id.startsWith('https://')) return id;
    if (client === undefined) return { error: 'invalid_client' };
    if (client.secret !== undefined)
      return body.client_secret === client.secret ? id : { error: 'invalid_client' };
    return id;
  };

  /** Checks a DPoP proof at the token endpoint: its key's thumbprint, or a refusal (and the nonce to use). */
  const dpopProof = async (
    req: IncomingMessage,
  ): Promise<string | undefined | { error: string; nonce?: string }> => {
    const proof = req.headers.dpop;
    if (typeof proof !== 'string') return undefined;
    try {
      const header = decodeProtectedHeader(proof);
      if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || !header.jwk)
        return { error: 'invalid_dpop_proof' };
      const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, 'ES256'));
      if (payload.htm !== 'POST' || payload.htu !== endpoint('token') || typeof payload.jti !== 'string')
        return { error: 'invalid_dpop_proof' };
      if (usedJtis.has(payload.jti)) return { error: 'invalid_dpop_proof' };
      usedJtis.add(payload.jti);
      if (options.dpopNonce !== undefined && payload.nonce !== options.dpopNonce)
        return { error: 'use_dpop_nonce', nonce: options.dpopNonce };
      return await calculateJwkThumbprint(header.jwk as JWK);
    } catch {
      return { error: 'invalid_dpop_proof' };
    }
  };

  const issue = async (
    res: ServerResponse,
    subject: string,
    clientId: string,
    scope: string | undefined,
    resource: string | undefined,
    jkt: string | undefined,
    refresh: boolean,
  ) => {
    const claims: JWTPayload = {
      sub: subject,
      client_id: clientId,
      ...(scope ? { scope } : {}),
      ...(jkt ? { cnf: { jkt } } : {}),
    };
    const accessToken = await sign(claims, { audience: resource ?? 'urn:no-resource', typ: 'at+jwt' });
    const refreshToken = refresh && options.refreshTokens !== false ? randomUUID() : undefined;
    if (refreshToken) refreshTokens.set(refreshToken, { clientId, scope, resource, ...(jkt ? { jkt } : {}) });
    json(res, 200, {
      access_token: accessToken,
      token_type: options.tokenType ?? (jkt ? 'DPoP' : 'Bearer'),
      expires_in: options.expiresIn ?? 300,
      ...(scope ? { scope } : {}),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    });
  };

  const token = async (req: IncomingMessage, res: ServerResponse, body: Record<string, string>) => {
    const fail = (status: number, error: string, extra: Record<string, string> = {}) => {
      for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
      json(res, status, { error, error_description: `refused: ${error}` });
    };
    let jkt: string | undefined;
    if (options.dpop) {
      const proof = await dpopProof(req);
      if (typeof proof === 'object')
        return fail(400, proof.error, proof.nonce ? { 'dpop-nonce': proof.nonce } : {});
      jkt = proof;
    }
    switch (body.grant_type ?? '') {
      case 'authorization_code': {
        const client = await authenticate(req, body);
        if (typeof client !== 'string') return fail(401, client.error);
        const grant = codes.get(body.code ?? '');
        codes.delete(body.code ?? '');
        if (!grant || grant.clientId !== client || grant.redirectUri !== body.redirect_uri)
          return fail(400, 'invalid_grant');
        const verifier = body.code_verifier ?? '';
        if (
          grant.challenge === undefined ||
          createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
        )
          return fail(400, 'invalid_grant');
        if (grant.resource !== body.resource) return fail(400, 'invalid_target');
        return issue(
          res,
          'user-1',
          client,
          options.grant ? options.grant(grant.scope) : grant.scope,
          grant.resource,
          jkt,
          true,
        );
      }
      case 'refresh_token': {
        const client = await authenticate(req, body);
        const held = refreshTokens.get(body.refresh_token ?? '');
        if (typeof client !== 'string' || !held || held.clientId !== client)
          return fail(400, 'invalid_grant');
        refreshTokens.delete(body.refresh_token ?? '');
        if (held.jkt !== undefined && held.jkt !== jkt) return fail(400, 'invalid_grant');
        return issue(res, 'user-1', client, held.scope, body.resource ?? held.resource, jkt, true);
      }
      case 'client_credentials': {
        const client = await authenticate(req, body);
        if (typeof client !== 'string') return fail(401, client.error);
        return issue(res, client, client, body.scope, body.resource, jkt, false);
      }
      case 'urn:ietf:params:oauth:grant-type:jwt-bearer': {
        const client = await authenticate(req, body);
        if (typeof client !== 'string') return fail(401, client.error);
        if (!options.assertionKey) return fail(400, 'unsupported_grant_type');
        try {
          const { payload } = await jwtVerify(body.assertion ?? '', options.assertionKey, {
            audience: issuer(),
          });
          return issue(res, String(payload.sub), client, body.scope, body.resource, jkt, false);
        } catch {
          return fail(400, 'invalid_grant');
        }
      }
      case 'urn:ietf:params:oauth:grant-type:token-exchange': {
        const client = await authenticate(req, body);
        if (typeof client !== 'string') return fail(401, client.error);
        if (
          body.requested_token_type !== 'urn:ietf:params:oauth:token-type:id-jag' ||
          !body.audience ||
          !body.resource
        )
          return fail(400, 'invalid_request');
        try {
          const { payload } = await jwtVerify(body.subject_token ?? '', keys.publicKey, { issuer: issuer() });
          const idJag = await sign(
            { sub: payload.sub, resource: body.resource, client_id: client },
            { audience: body.audience, typ: 'oauth-id-jag+jwt', expiresIn: '5m' },
          );
          return json(res, 200, {
            access_token: idJag,
            issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
            token_type: 'N_A',
          });
        } catch {
          return fail(400, 'invalid_grant');
        }
      }
      default:
        return fail(400, 'unsupported_grant_type');
    }
  };

  const authorize = (res: ServerResponse, query: Record<string, string>) => {
    const redirect = new URL(query.redirect_uri ?? 'http://invalid.test/');
    const client = clients.get(query.client_id ?? '');
    const known =
      client !== undefined || (options.clientIdMetadataDocuments && query.client_id?.startsWith('https://'));
    if (!known || (client?.redirectUris && !client.redirectUris.includes(query.redirect_uri ?? ''))) {
      return json(res, 400, {
        error: 'invalid_request',
        error_description: 'unknown client or redirect_uri',
      });
    }
    const code = randomUUID();
    codes.set(code, {
      clientId: query.client_id ?? '',
      redirectUri: query.redirect_uri ?? '',
      challenge: query.code_challenge_method === 'S256' ? query.code_challenge : undefined,
      scope: query.scope,
      resource: query.resource,
    });
    redirect.searchParams.set('code', code);
    if (query.state) redirect.searchParams.set('state', query.state);
    const iss = options.iss ?? 'correct';
    if (iss === 'correct') redirect.searchParams.set('iss', issuer());
    if (iss === 'wrong') redirect.searchParams.set('iss', 'https://evil.example.test');
    if (iss === 'trailing-slash') redirect.searchParams.set('iss', `${issuer()}/`);
    if (iss === 'empty') redirect.searchParams.set('iss', '');
    res.writeHead(302, { location: redirect.href }).end();
  };

  const register = (res: ServerResponse, body: Record<string, unknown>) => {
    const id = `client-${clients.size + 1}`;
    const method =
      typeof body.token_endpoint_auth_method === 'string'
        ? body.token_endpoint_auth_method
        : 'client_secret_basic';
    const secret = method === 'none' ? undefined : randomUUID();
    const redirectUris = Array.isArray(body.redirect_uris) ? (body.redirect_uris as string[]) : [];
    clients.set(id, { ...(secret ? { secret } : {}), redirectUris, authMethod: method });
    json(res, 201, {
      ...body,
      client_id: id,
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      token_endpoint_auth_method: method,
    });
  };

  const http = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', origin);
      const type = req.headers['content-type'] ?? '';
      const body: Record<string, string> = type.startsWith('application/json')
        ? (JSON.parse(raw || '{}') as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(raw));
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        headers: req.headers,
      });
      const at = (name: string) => url.pathname === (options.noMetadata ? `/${name}` : `${path}/${name}`);
      if (req.method === 'GET' && metadataPaths().includes(url.pathname)) return json(res, 200, metadata());
      if (req.method === 'GET' && url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
      if (req.method === 'GET' && at('authorize'))
        return authorize(res, Object.fromEntries(url.searchParams));
      if (req.method === 'POST' && at('token')) return void token(req, res, body);
      if (req.method === 'POST' && at('register') && options.registration !== false)
        return register(res, body);
      json(res, 404, { error: 'not_found' });
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return {
    origin,
    issuer: issuer(),
    jwksUrl: `${origin}/jwks`,
    requests,
    clients,
    publicKey: keys.publicKey,
    revokeRefreshTokens: () => refreshTokens.clear(),
    to: (name) => requests.filter((request) => request.path === name),
    sign,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}
