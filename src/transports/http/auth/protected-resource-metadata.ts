/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells an MCP client which
 * authorization servers issue tokens for this server, and where that document lives.
 * @module
 */
import type { HttpRequestLike } from '../http-exchange.js';

/** The path prefix RFC 9728 registers under `/.well-known/`. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadataOptions {
  /**
   * This server's canonical URL, including the MCP endpoint's path, e.g. `https://mcp.example.com/mcp`:
   * the RFC 8707 resource clients ask tokens for, and the audience tokens must carry. Default: the
   * request's origin and the endpoint path, which is wrong behind a proxy that rewrites the host or path;
   * set it in production.
   */
  resource?: string;
  /** Issuer URLs of the authorization servers that issue tokens for this server (at least one). */
  authorizationServers: string[];
  /** Scopes this server understands (also the `scope` of a 401 challenge when no scope is required). */
  scopesSupported?: string[];
  /** A human-readable name of this server. */
  resourceName?: string;
  /** A URL of human-readable documentation for developers. */
  resourceDocumentation?: string;
}

/** The RFC 9728 §2 document, as served. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: ['header'];
  resource_name?: string;
  resource_documentation?: string;
}

/** The resource identifier: `options.resource`, or the request's origin followed by `endpoint`. */
export function resourceUrl(
  options: { resource?: string },
  request: HttpRequestLike,
  endpoint: string,
): string {
  return options.resource ?? new URL(endpoint, new URL(request.url).origin).href;
}

/** The metadata document for `resource`. Bearer tokens are accepted in the `Authorization` header only. */
export function protectedResourceMetadata(
  options: ProtectedResourceMetadataOptions,
  resource: string,
): ProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [...options.authorizationServers],
    ...(options.scopesSupported === undefined ? {} : { scopes_supported: [...options.scopesSupported] }),
    bearer_methods_supported: ['header'],
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: options.resourceDocumentation }),
  };
}

/**
 * Where the metadata of `resource` lives (RFC 9728 §3.1): `/.well-known/oauth-protected-resource` inserted
 * between the host and the path, the path and query kept. `https://h/mcp` →
 * `https://h/.well-known/oauth-protected-resource/mcp`; `https://h` or `https://h/` →
 * `https://h/.well-known/oauth-protected-resource`. A fragment is dropped (a resource has none).
 */
export function metadataUrl(resource: string | URL): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}${url.search}`;
}
