/**
 * How an `OAuthClient` is set up: how it gets tokens (the grant), who the client is, what it asks for,
 * where it keeps what it obtains, and how it talks to servers.
 * @module
 */
import type { JWK } from 'jose';
import type { AuthorizeHandler } from './authorization-code-grant.js';
import type { TokenEndpointAuthMethod } from './client-authentication.js';
import type { OAuthStore } from './oauth-store.js';
import type { IdentityProvider } from './token-requests.js';

/** Options every grant shares. */
export interface OAuthClientCommonOptions {
  /**
   * A client id registered with the authorization server beforehand. Used first, before a Client ID
   * Metadata Document or dynamic registration.
   */
  clientId?: string;
  /** The secret of `clientId` (`client_secret_basic`, or `client_secret_post` when the server only takes that). */
  clientSecret?: string;
  /**
   * The issuer of the authorization server that registered `clientId`, exactly as resource metadata names
   * it. `clientId` and its secret or key are presented to that server only: another one a resource names
   * is an `OAuthError` (step `registration`), and nothing is sent there. Without it, the credentials are
   * bound to the first authorization server they are used with (kept in `store`), and refused to others.
   */
  clientIssuer?: string;
  /** A private key for `private_key_jwt` (RFC 7523): a CryptoKey, a PKCS#8 PEM string or a private JWK. */
  privateKey?: CryptoKey | string | JWK;
  /** The JWS algorithm of `privateKey` when it does not say (default ES256). */
  signingAlgorithm?: string;
  /** Force a token endpoint authentication method (default: from the credentials and the server's metadata). */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /**
   * The HTTPS URL of this client's Client ID Metadata Document: used as the `client_id` at authorization
   * servers that support such documents (`client_id_metadata_document_supported`), instead of registering.
   */
  clientMetadataUrl?: string;
  /**
   * Client metadata for dynamic registration (RFC 7591), merged over the defaults (`client_name`
   * "toolwire", the redirect URI, the grant types, `token_endpoint_auth_method`, `application_type`).
   */
  clientMetadata?: Record<string, unknown>;
  /** Scopes always asked for, besides those the server's challenge or metadata name. */
  scope?: string;
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it. Authorization
   * code grant only. Default true.
   */
  offlineAccess?: boolean;
  /**
   * Bind tokens to a DPoP key (RFC 9449). `'auto'` (default): when the authorization server supports
   * ES256 proofs and the MCP server takes DPoP (its challenge or metadata says so); `true`: whenever the
   * authorization server supports them (else authorization fails); `false`: never.
   */
  dpop?: boolean | 'auto';
  /** Where tokens, registrations and DPoP keys are kept. Default: in memory (`MemoryOAuthStore`). */
  store?: OAuthStore;
  /** Used for metadata, registration and token requests instead of the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Allow plain-HTTP authorization servers, metadata URLs and MCP servers that are not on a loopback host.
   * Off by default: OAuth endpoints must use HTTPS, and no token is obtained for or sent to an MCP server
   * reached over plain HTTP (loopback excepted, for development).
   */
  allowInsecureHttp?: boolean;
  /**
   * How many times one request may be re-authorized for more scopes after a 403 `insufficient_scope`
   * (step-up authorization). Default 2.
   */
  maxStepUps?: number;
}

/** The authorization code grant with PKCE: a person signs in (the default grant). */
export interface AuthorizationCodeOptions {
  grant?: 'authorization_code';
  /** The redirect URI (a loopback `http://127.0.0.1:PORT/...` for a native app, or an HTTPS URL). */
  redirectUrl: string;
  /**
   * Sends the user to the authorization URL and resolves with the URL the browser was redirected to
   * (the redirect URI with `code`, `state`, …).
   */
  authorize: AuthorizeHandler;
  /** How long the user has to finish signing in, in ms. Default 300000 (5 minutes). */
  authorizationTimeoutMs?: number;
}

/** The client credentials grant: the client acts on its own behalf (needs `clientId` and a secret or key). */
export interface ClientCredentialsOptions {
  grant: 'client_credentials';
}

/** The JWT bearer grant (RFC 7523): a workload's identity token is exchanged for an access token (SEP-1933). */
export interface JwtBearerOptions {
  grant: 'jwt_bearer';
  /** The JWT to present (a function is called for each token request, e.g. to read a fresh one). */
  assertion: string | (() => string | Promise<string>);
}

/**
 * Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise identity provider
 * is exchanged there for an ID-JAG, which the MCP server's authorization server takes for an access token.
 */
export interface EnterpriseManagedOptions {
  grant: 'enterprise_managed';
  identityProvider: IdentityProvider;
}

export type OAuthGrantOptions =
  AuthorizationCodeOptions | ClientCredentialsOptions | JwtBearerOptions | EnterpriseManagedOptions;

export type OAuthClientOptions = OAuthClientCommonOptions & OAuthGrantOptions;

/** One HTTP request the OAuth client sends with credentials (what the HTTP client transports hand it). */
export interface OAuthRequest {
  /** The MCP server's endpoint URL: the protected resource whose credentials are used. */
  resource: URL;
  /** Where the request goes (the endpoint itself, or the legacy transport's message URL). */
  url: URL;
  method: string;
  /**
   * Its headers. An `MCP-Protocol-Version` of 2025-06-18 or later (a session negotiated at that revision)
   * means the server's authorization server is found through its resource metadata only, never taken to
   * be at its origin as a 2025-03-26 server's.
   */
  headers: Headers;
  body?: string | undefined;
  /** Aborts the request, and its wait for a refresh or authorization under way (which runs on for others). */
  signal?: AbortSignal | undefined;
  /** The fetch that sends it (the transport's). */
  fetch: typeof fetch;
  /** Whether a person may be asked to sign in for it. Default true. */
  interactive?: boolean;
}

/** What is known about the authorization for one MCP server (never the tokens themselves). */
export interface OAuthStatus {
  issuer: string;
  tokenType: 'Bearer' | 'DPoP';
  scope?: string;
  /** When the access token expires (ms since the epoch), when known. */
  expiresAt?: number;
  /** A refresh token is held. */
  refreshable: boolean;
}
