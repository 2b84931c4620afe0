/**
 * The HTTP client transports (`toolwire/http-client`): Streamable HTTP (MCP 2025-03-26 and later,
 * with the 2026-07-28 request metadata headers), the legacy HTTP+SSE transport (2024-11-05), and a
 * transport that picks between them the way the spec's backwards-compatibility rules say; the OAuth
 * client of MCP's authorization spec (`OAuthClient`, the transports' `oauth` option). Web-standard only
 * (`fetch`, streams, WebCrypto): no Node imports. Everything exported here is public API.
 *
 * @example
 * ```ts
 * import { Client } from 'toolwire/client';
 * import { FallbackHttpClientTransport } from 'toolwire/http-client';
 *
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new FallbackHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }));
 * ```
 * @module toolwire/http-client
 */
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
} from './streamable-http-client-transport.js';
export { SseClientTransport, type SseClientTransportOptions } from './sse-client-transport.js';
export {
  FallbackHttpClientTransport,
  type FallbackHttpClientTransportOptions,
} from './fallback-http-client-transport.js';
export type { BearerOption, HttpClientOptions, HeadersOption } from './http-client-options.js';
export { authFailure, type HttpAuthFailureDetails, type HttpFailureDetails } from './http-failure.js';
export type { BearerChallenge } from './www-authenticate.js';
export { OAuthClient } from './oauth/oauth-client.js';
export type {
  AuthorizationCodeOptions,
  ClientCredentialsOptions,
  EnterpriseManagedOptions,
  JwtBearerOptions,
  OAuthClientCommonOptions,
  OAuthClientOptions,
  OAuthGrantOptions,
  OAuthRequest,
  OAuthStatus,
} from './oauth/oauth-client-options.js';
export {
  MemoryOAuthStore,
  type ClientSource,
  type OAuthRecord,
  type OAuthStore,
  type StoredClient,
  type StoredRegistration,
  type StoredTokens,
} from './oauth/oauth-store.js';
export { OAuthError, type OAuthErrorDetails, type OAuthStep } from './oauth/oauth-error.js';
export type { AuthorizeHandler } from './oauth/authorization-code-grant.js';
export type { IdentityProvider } from './oauth/token-requests.js';
export type { TokenEndpointAuthMethod } from './oauth/client-authentication.js';
export type { ReconnectOptions } from './reconnect-policy.js';
export { TransportError } from '../transport-error.js';
