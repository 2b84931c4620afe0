/**
 * Who is calling: what an authenticated request carries into the server (from a verified token, an API
 * key, or the environment of a stdio server). Never the credential itself: a principal holds verified
 * facts only, so nothing downstream (handlers, middleware, audit records) can pass a token on.
 * @module
 */

export interface Principal {
  /** A stable identifier of the caller (a token's `sub`, an API key's owner). Sessions are bound to it. */
  readonly subject: string;
  /** The OAuth scopes granted to this credential. */
  readonly scopes: readonly string[];
  /** Roles, where the verifier maps them (e.g. from a `roles` claim). */
  readonly roles?: readonly string[];
  /** The OAuth client the credential was issued to (`client_id` / `azp`), when known. */
  readonly clientId?: string;
  /** When the credential expires, in ms since the epoch, when known. */
  readonly expiresAt?: number;
  /** Other verified claims, for policy functions. */
  readonly claims?: Readonly<Record<string, unknown>>;
}
