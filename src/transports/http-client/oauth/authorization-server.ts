/**
 * Authorization server metadata discovery (RFC 8414, OpenID Connect Discovery 1.0), the way MCP
 * 2025-11-25 orders it. For an issuer with a path (`https://as.example/tenant1`):
 * `/.well-known/oauth-authorization-server/tenant1`, `/.well-known/openid-configuration/tenant1`,
 * `/tenant1/.well-known/openid-configuration`; for one without: `/.well-known/oauth-authorization-server`,
 * `/.well-known/openid-configuration`. The first document found must name the issuer it was looked up
 * for (RFC 8414 §3.3), character for character (not merely an equal URL: no trailing slash added or
 * dropped, no case changed), else it is refused (no other is tried). A 2025-03-26 server publishes no
 * resource metadata: its authorization server is at its origin, with `/authorize`, `/token` and
 * `/register` there when it publishes no metadata either.
 * @module
 */
import * as oauth from 'oauth4webapi';
import { errorMessage } from '../../../protocol/errors.js';
import { OAuthError } from './oauth-error.js';
import { checkedUrl } from './oauth-http.js';

/** An authorization server, as its metadata describes it (or the 2025-03-26 defaults). */
export interface AuthorizationServer extends oauth.AuthorizationServer {
  /** RFC 9449 §5.1. */
  dpop_signing_alg_values_supported?: string[];
  /** draft-ietf-oauth-client-id-metadata-document. */
  client_id_metadata_document_supported?: boolean;
}

/** An authorization server found for an MCP server. */
export interface DiscoveredServer {
  metadata: AuthorizationServer;
  /** No metadata was published: the endpoints are the 2025-03-26 defaults at the server's origin. */
  defaults: boolean;
}

/** The metadata URLs of `issuer`, in the order the spec tries them. */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [
      new URL('/.well-known/oauth-authorization-server', issuer.origin),
      new URL('/.well-known/openid-configuration', issuer.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/**
 * The metadata of the authorization server `issuer` (as a resource's metadata names it), or `undefined`
 * when none of its well-known URLs has any. A document for another issuer is an `OAuthError`.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetcher: typeof fetch,
  allowInsecureHttp: boolean,
  sameOriginIssuer = false,
): Promise<AuthorizationServer | undefined> {
  const identifier = checkedUrl(issuer, 'The authorization server issuer', 'discovery', allowInsecureHttp);
  for (const url of authorizationServerMetadataUrls(identifier)) {
    let response: Response;
    try {
      response = await fetcher(url, { headers: { accept: 'application/json' } });
    } catch (error) {
      throw new OAuthError(
        `Fetching the authorization server metadata ${url.href} failed: ${errorMessage(error)}`,
        { step: 'discovery', url: url.href },
        error,
      );
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    try {
      const expected = sameOriginIssuer ? await issuerOfOrigin(response, identifier) : identifier;
      const metadata = (await oauth.processDiscoveryResponse(expected, response)) as AuthorizationServer;
      // oauth4webapi compares the URLs the two strings make; the spec wants the strings identical.
      if (!sameOriginIssuer && metadata.issuer !== issuer) {
        throw new Error(`it names the issuer ${JSON.stringify(metadata.issuer)}`);
      }
      return metadata;
    } catch (error) {
      throw new OAuthError(
        `The authorization server metadata at ${url.href} is refused: ${errorMessage(error)} (it must be for the issuer ${issuer})`,
        { step: 'discovery', url: url.href },
        error,
      );
    }
  }
  return undefined;
}

/**
 * The issuer a metadata document names, when it is of `origin`'s origin, else `origin` (which then fails
 * the comparison). A 2025-03-26 server's metadata is looked up at its origin, not by issuer: its issuer may
 * have a path.
 */
async function issuerOfOrigin(response: Response, origin: URL): Promise<URL> {
  try {
    const issuer = ((await response.clone().json()) as { issuer?: unknown }).issuer;
    if (typeof issuer === 'string' && new URL(issuer).origin === origin.origin) return new URL(issuer);
  } catch {
    // not JSON, or no URL: the comparison fails below
  }
  return origin;
}

/**
 * The authorization server of a 2025-03-26 MCP server (one without resource metadata): the metadata at
 * its origin (whose issuer may have a path there), else the default endpoints `/authorize`, `/token` and
 * `/register` there.
 */
export async function legacyAuthorizationServer(
  resource: URL,
  fetcher: typeof fetch,
  allowInsecureHttp: boolean,
): Promise<DiscoveredServer> {
  const issuer = resource.origin;
  const metadata = await discoverAuthorizationServer(issuer, fetcher, allowInsecureHttp, true);
  if (metadata !== undefined) return { metadata, defaults: false };
  return {
    defaults: true,
    metadata: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      response_types_supported: ['code'],
      // 2025-03-26: PKCE is required of every client and server.
      code_challenge_methods_supported: ['S256'],
    },
  };
}

/**
 * Refuses an authorization server that does not support PKCE with S256 (MCP 2025-11-25: clients MUST
 * refuse to proceed when `code_challenge_methods_supported` is absent).
 */
export function requirePkce(server: AuthorizationServer): void {
  const methods = server.code_challenge_methods_supported;
  if (Array.isArray(methods) && methods.includes('S256')) return;
  throw new OAuthError(
    `The authorization server ${server.issuer} does not support PKCE with S256 (code_challenge_methods_supported: ${JSON.stringify(methods ?? null)}): refused`,
    { step: 'discovery' },
  );
}
