/**
 * Where the OAuth client keeps what it obtained for each MCP server: the tokens (and the issuer that
 * issued them), the client registrations it made (one per authorization server: credentials are never
 * carried from one to another, SEP-2352), the DPoP key its tokens are bound to, and the authorization server
 * a pre-registered client was first used with. `OAuthStore` is the
 * interface; `MemoryOAuthStore` (the default) keeps records for the life of the process. The CLI keeps
 * them in a file only its user can read.
 * @module
 */
import type { JWK } from 'jose';

/** Tokens for one MCP server. */
export interface StoredTokens {
  accessToken: string;
  /** `DPoP` when the access token is bound to the record's DPoP key. */
  tokenType: 'Bearer' | 'DPoP';
  refreshToken?: string;
  /** When the access token expires (ms since the epoch), when the server said. */
  expiresAt?: number;
  /**
   * When they were obtained (ms since the epoch), kept with `expiresAt`: the access token is refreshed
   * once half its lifetime is left, or 30 s when that is less (30 s before its expiry without this).
   */
  obtainedAt?: number;
  /** The scopes granted (the server's `scope`, else the scopes asked for). */
  scope?: string;
  /** The scopes asked for (a later re-authorization asks for at least these). */
  requestedScope?: string;
  /** The authorization server (issuer) that issued them. */
  issuer: string;
  /** The RFC 8707 resource indicator they were asked for (refreshes ask for it again). */
  resource?: string;
  /** The client they were issued to: a refresh presents that client, and no other (RFC 6749 §6). */
  client?: StoredClient;
}

/** Where a client's identity at an authorization server came from. */
export type ClientSource = 'pre-registered' | 'registered' | 'metadata-document' | 'dynamic-registration';

/**
 * The client tokens were issued to, as kept with them: never its secret or key (a pre-registered client's
 * come from the application's options; a registration's are in `registrations`).
 */
export interface StoredClient {
  clientId: string;
  /** How the client was known (`registered`, `dynamic-registration`: the registration kept for the issuer). */
  source: ClientSource;
  /** The token endpoint authentication method it used. */
  tokenEndpointAuthMethod: string;
}

/** A client registration with one authorization server (dynamic registration, RFC 7591). */
export interface StoredRegistration {
  clientId: string;
  clientSecret?: string;
  /** When the secret expires (ms since the epoch); absent or 0: never. */
  clientSecretExpiresAt?: number;
  /** The `token_endpoint_auth_method` the server registered. */
  tokenEndpointAuthMethod?: string;
  /** The redirect URIs registered (a registration for others is not reused). */
  redirectUris?: string[];
}

/** Everything kept for one MCP server (or, under its own key, for one pre-registered client). */
export interface OAuthRecord {
  tokens?: StoredTokens;
  /** Registrations by issuer. */
  registrations?: Record<string, StoredRegistration>;
  /** The private DPoP key (JWK) the tokens are bound to. */
  dpopKey?: JWK;
  /**
   * The issuer a pre-registered client's credentials were first used with, and the only one they are
   * presented to afterwards (kept under `pre-registered:<client id>`).
   */
  boundIssuer?: string;
}

/**
 * Keeps OAuth records by key: the MCP server's URL, or `pre-registered:<client id>` for the authorization
 * server a pre-registered client is bound to. Implementations may be asynchronous; records are plain JSON.
 */
export interface OAuthStore {
  load(key: string): OAuthRecord | undefined | Promise<OAuthRecord | undefined>;
  save(key: string, record: OAuthRecord): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** Records in memory, for the life of the process (copies in and out: a caller cannot change one). */
export class MemoryOAuthStore implements OAuthStore {
  readonly #records = new Map<string, OAuthRecord>();

  load(key: string): OAuthRecord | undefined {
    const record = this.#records.get(key);
    return record === undefined ? undefined : structuredClone(record);
  }

  save(key: string, record: OAuthRecord): void {
    this.#records.set(key, structuredClone(record));
  }

  delete(key: string): void {
    this.#records.delete(key);
  }
}
