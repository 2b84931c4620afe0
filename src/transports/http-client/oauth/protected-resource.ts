/**
 * Protected resource metadata discovery (RFC 9728, MCP 2025-06-18 on): where an MCP server's
 * authorization servers are. The client tries the `resource_metadata` URL of the server's challenge,
 * then the path-aware well-known URL (`/.well-known/oauth-protected-resource/<mcp path>`), then the
 * root one, and takes the first document found. The document must be for this server: its `resource`
 * must have the MCP URL's origin and a path that is the MCP URL's path or a parent of it; another
 * resource's metadata is refused, so no token is ever obtained for the wrong audience. Every URL tried,
 * the well-known ones too, is an OAuth URL: HTTPS, or plain HTTP to a loopback host only (unless
 * `allowInsecureHttp`).
 * @module
 */
import { checkedUrl, jsonObject } from './oauth-http.js';
import { OAuthError } from './oauth-error.js';

/** What a protected resource's metadata says, checked. */
export interface ProtectedResource {
  /** Where the document was found. */
  metadataUrl: string;
  /** The `resource` identifier, as the document has it (sent as the RFC 8707 `resource` parameter). */
  resource: string;
  /** The issuers of the authorization servers it trusts (at least one). */
  authorizationServers: string[];
  scopesSupported?: string[];
  /** RFC 9449 §5.2: the DPoP algorithms the resource takes, when it lists them. */
  dpopSigningAlgValuesSupported?: string[];
  /** RFC 9449 §5.2: the resource always requires DPoP-bound tokens. */
  dpopBoundAccessTokensRequired?: boolean;
}

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The well-known metadata URLs of `resource`, in the order the spec tries them: the path-aware one (the
 * well-known prefix inserted before the path, the query kept, RFC 9728 §3.1), then the root one.
 */
export function protectedResourceMetadataUrls(resource: URL): URL[] {
  const path = resource.pathname.replace(/\/+$/, '');
  const urls = [];
  if (path !== '' || resource.search !== '') {
    urls.push(new URL(`${PROTECTED_RESOURCE_WELL_KNOWN}${path}${resource.search}`, resource.origin));
  }
  urls.push(new URL(PROTECTED_RESOURCE_WELL_KNOWN, resource.origin));
  return urls;
}

/**
 * Whether `identifier` names `resource` or a parent of it: same origin, and its path `resource`'s path
 * or a leading run of whole segments of it.
 */
export function resourceMatches(identifier: string, resource: URL): boolean {
  let url: URL;
  try {
    url = new URL(identifier);
  } catch {
    return false;
  }
  if (url.origin !== resource.origin || url.hash !== '') return false;
  const prefix = url.pathname.replace(/\/+$/, '');
  const path = resource.pathname.replace(/\/+$/, '');
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The metadata of the MCP server at `resource`, or `undefined` when it publishes none (a 2025-03-26
 * server). `challenged` is the `resource_metadata` URL of its 401, if it sent one.
 */
export async function discoverProtectedResource(
  resource: URL,
  challenged: string | undefined,
  fetcher: typeof fetch,
  allowInsecureHttp: boolean,
): Promise<ProtectedResource | undefined> {
  const candidates = protectedResourceMetadataUrls(resource).map((url) =>
    checkedUrl(url.href, 'The protected resource metadata URL', 'discovery', allowInsecureHttp),
  );
  if (challenged !== undefined) {
    candidates.unshift(
      checkedUrl(challenged, 'The resource_metadata URL of the challenge', 'discovery', allowInsecureHttp),
    );
  }
  for (const url of candidates) {
    let response: Response;
    try {
      response = await fetcher(url, { headers: { accept: 'application/json' } });
    } catch (error) {
      throw new OAuthError(
        `Fetching the protected resource metadata ${url.href} failed`,
        { step: 'discovery', url: url.href },
        error,
      );
    }
    const document = await jsonObject(response);
    if (document !== undefined) return checked(document, url, resource);
  }
  return undefined;
}

function checked(document: Record<string, unknown>, url: URL, resource: URL): ProtectedResource {
  const fail = (why: string) =>
    new OAuthError(`The protected resource metadata at ${url.href} ${why}`, {
      step: 'discovery',
      url: url.href,
    });
  const identifier = document.resource;
  if (typeof identifier !== 'string') throw fail('has no "resource"');
  if (!resourceMatches(identifier, resource)) {
    throw fail(
      `is for ${JSON.stringify(identifier)}, not for ${resource.href}: refused (no token is asked for another resource)`,
    );
  }
  const servers = strings(document.authorization_servers);
  if (servers === undefined || servers.length === 0) throw fail('names no authorization_servers');
  const scopes = strings(document.scopes_supported);
  const dpopAlgs = strings(document.dpop_signing_alg_values_supported);
  return {
    metadataUrl: url.href,
    resource: identifier,
    authorizationServers: servers,
    ...(scopes === undefined ? {} : { scopesSupported: scopes }),
    ...(dpopAlgs === undefined ? {} : { dpopSigningAlgValuesSupported: dpopAlgs }),
    ...(document.dpop_bound_access_tokens_required === true ? { dpopBoundAccessTokensRequired: true } : {}),
  };
}

/** The strings of a JSON array of strings (others are dropped), or `undefined` when it is not an array. */
export function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}
