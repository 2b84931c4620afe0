// toolwire's own OAuth resource server for the OAuth client's tests: the auth fixture's tools
// (test/fixtures/auth-server.mjs) behind StreamableHttpHandler with `auth` (RFC 9728 metadata, 401/403
// challenges, JWT access tokens checked against the test authorization server's JWKS, audience = this
// server's URL), on 127.0.0.1. Optionally behind a DPoP front that checks each proof (RFC 9449 §7: htm,
// htu, ath, the key the token is bound to, fresh jti, the nonce it asks for) before the token goes on as a
// Bearer token; or as a 2025-03-26 server: no resource metadata, and the authorization server's endpoints
// served from its own origin. Access tokens it was sent can be revoked.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  type JWK,
} from 'jose';
import * as source from '../src/server/index.js';
import type { Server } from '../src/server/index.js';
import { StreamableHttpHandler, jwtVerifier, toNodeHandler } from '../src/transports/http/index.js';
import type { TestAuthorizationServer } from './_authorization-server.js';

const FIXTURE = new URL('./fixtures/auth-server.mjs', import.meta.url);

export interface ProtectedServerOptions {
  scopesSupported?: string[];
  /** The resource the metadata names, from the server's own URL (default: that URL). */
  resource?: (url: string) => string;
  /** The issuers the metadata names (default: the test authorization server's). */
  authorizationServers?: string[];
  /** Check DPoP proofs in front of the server; `nonce`: require it (RFC 9449 §9). */
  dpop?: { nonce?: string };
  /** A 2025-03-26 server: no metadata, the authorization server's endpoints proxied from this origin. */
  legacy?: boolean;
}

export interface ProtectedServer {
  readonly url: string;
  /** The `Authorization` scheme of every request to the MCP endpoint (`none` without one). */
  readonly schemes: string[];
  /** The `jti` of every DPoP proof the front accepted. */
  readonly proofs: string[];
  /**
   * Revokes every access token presented so far: a request carrying one is answered as one without a
   * token (401 with the server's challenge).
   */
  revokeTokens(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startProtectedServer(
  as: TestAuthorizationServer,
  options: ProtectedServerOptions = {},
): Promise<ProtectedServer> {
  const build = ((await import(FIXTURE.href)) as { build: (mod: typeof source) => Server }).build;
  const schemes: string[] = [];
  const proofs: string[] = [];
  const presented = new Set<string>();
  const revoked = new Set<string>();
  let url = '';
  // The handlers are made once the port (so the server's URL, its default resource) is known.
  let node: NodeHandler = (_req, res) => void res.writeHead(503).end();
  let open: NodeHandler = node;
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', url).pathname;
    if (path !== '/mcp') {
      if (options.legacy) return void proxy(req, res, as.origin);
      return node(req, res);
    }
    schemes.push(req.headers.authorization?.split(' ')[0] ?? 'none');
    const token = req.headers.authorization?.split(' ')[1];
    if (token !== undefined && revoked.has(token)) delete req.headers.authorization;
    else if (token !== undefined) presented.add(token);
    if (options.legacy) return void legacy(req, res, as, open);
    if (options.dpop) return void dpopFront(req, res, url, options.dpop.nonce, proofs, node);
    node(req, res);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const resource = options.resource?.(url) ?? url;
  const verify = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: resource });
  node = toNodeHandler(
    new StreamableHttpHandler(build(source), {
      responseMode: 'json',
      auth: {
        verifier: verify,
        resource,
        authorizationServers: options.authorizationServers ?? [as.issuer],
        ...(options.scopesSupported ? { scopesSupported: options.scopesSupported } : {}),
      },
    }),
  );
  // The 2025-03-26 server checks tokens in front (see `legacy`), then serves the tools without auth.
  open = toNodeHandler(new StreamableHttpHandler(build(source), { responseMode: 'json' }));
  const close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return {
    url,
    schemes,
    proofs,
    revokeTokens: () => {
      for (const token of presented) revoked.add(token);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

function challenge(
  res: ServerResponse,
  url: string,
  extra: string,
  headers: Record<string, string> = {},
): void {
  const metadata = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
  res
    .writeHead(401, {
      ...headers,
      'www-authenticate': `DPoP algs="ES256"${extra}, Bearer resource_metadata="${metadata}"`,
    })
    .end();
}

/** Checks the DPoP proof of a request (RFC 9449 §4.3, §7.1), then passes its token on as a Bearer token. */
async function dpopFront(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  nonce: string | undefined,
  proofs: string[],
  node: NodeHandler,
): Promise<void> {
  const authorization = req.headers.authorization ?? '';
  const proof = req.headers.dpop;
  if (!authorization.startsWith('DPoP ') || typeof proof !== 'string') return challenge(res, url, '');
  const token = authorization.slice(5);
  try {
    const header = decodeProtectedHeader(proof);
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, 'ES256'), {
      typ: 'dpop+jwt',
    });
    const ath = createHash('sha256').update(token).digest('base64url');
    const bound = (decodeJwt(token).cnf as { jkt?: string } | undefined)?.jkt;
    const valid =
      payload.htm === req.method &&
      payload.htu === url &&
      payload.ath === ath &&
      typeof payload.jti === 'string' &&
      !proofs.includes(payload.jti) &&
      bound === (await calculateJwkThumbprint(header.jwk as JWK));
    if (!valid) return challenge(res, url, ', error="invalid_dpop_proof"');
    proofs.push(payload.jti as string);
    if (nonce !== undefined && payload.nonce !== nonce) {
      return challenge(res, url, ', error="use_dpop_nonce"', { 'dpop-nonce': nonce });
    }
  } catch {
    return challenge(res, url, ', error="invalid_dpop_proof"');
  }
  req.headers.authorization = `Bearer ${token}`;
  node(req, res);
}

/** A 2025-03-26 server: a 401 without resource metadata unless the token is one the authorization server signed. */
async function legacy(
  req: IncomingMessage,
  res: ServerResponse,
  as: TestAuthorizationServer,
  open: NodeHandler,
): Promise<void> {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  try {
    await jwtVerify(token ?? '', as.publicKey, { issuer: as.issuer });
  } catch {
    res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
    return;
  }
  open(req, res);
}

/** Forwards a request to the authorization server (the 2025-03-26 server serves its endpoints itself). */
async function proxy(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
    ),
  );
  const response = await fetch(new URL(req.url ?? '/', target), {
    method: req.method ?? 'GET',
    headers,
    redirect: 'manual',
    ...(req.method === 'GET' ? {} : { body: Buffer.concat(chunks) }),
  });
  const answer: Record<string, string> = {};
  response.headers.forEach((value, name) => (answer[name] = value));
  res.writeHead(response.status, answer).end(Buffer.from(await response.arrayBuffer()));
}
