/**
 * Which authorization server pre-registered credentials belong to (MCP 2026-07-28, client registration,
 * "Authorization Server Binding"): a `clientId` (and its secret or key) registered beforehand is issued by
 * one authorization server, and is never presented to another — whatever a resource's metadata names.
 * With `clientIssuer` the application says which server that is, and only that issuer (the very string)
 * gets the credentials. Without it the credentials are bound on first use: the issuer they are first sent
 * to is kept in the client's store (under `pre-registered:<client id>`), and every other one is refused.
 * Only an authorization server resource metadata names is bound on first use: a 2025-03-26 server's
 * origin (no metadata names it) gets the credentials when `clientIssuer` names it or they are bound to it.
 * A refusal is an `OAuthError` (step `registration`) raised before any request carries the credentials.
 * @module
 */
import { OAuthError } from './oauth-error.js';
import type { OAuthStore } from './oauth-store.js';

/** The store key of the binding of a pre-registered `clientId`. */
export function bindingKey(clientId: string): string {
  return `pre-registered:${clientId}`;
}

/** The binding of one pre-registered client to its authorization server. */
export class ClientBinding {
  readonly #store: OAuthStore;
  readonly #clientId: string;
  /** The issuer the application named (`clientIssuer`). */
  readonly #configured: string | undefined;
  /** Checks one at a time: two resources naming two servers at once cannot both bind first. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(store: OAuthStore, clientId: string, configured: string | undefined) {
    this.#store = store;
    this.#clientId = clientId;
    this.#configured = configured;
  }

  /**
   * Resolves when the credentials may be presented to `issuer` (binding them to it when nothing bound
   * them yet and `named`); rejects with an `OAuthError` when they belong to another authorization server,
   * or to none yet and `issuer` is not `named`. `resource`: the MCP server whose resource metadata named
   * `issuer` (`named`), or whose origin it is, for the message.
   */
  check(issuer: string, resource: string, named = true): Promise<void> {
    const checked = this.#queue.then(() => this.#check(issuer, resource, named));
    this.#queue = checked.catch(() => undefined);
    return checked;
  }

  async #check(issuer: string, resource: string, named: boolean): Promise<void> {
    if (this.#configured !== undefined) {
      if (issuer !== this.#configured)
        throw this.#refusal(issuer, this.#configured, resource, 'clientIssuer');
      return;
    }
    const key = bindingKey(this.#clientId);
    const bound = (await this.#store.load(key))?.boundIssuer;
    if (bound === undefined && !named) {
      throw new OAuthError(
        `The pre-registered client ${JSON.stringify(this.#clientId)} is bound to no authorization server yet, ` +
          `and ${issuer} is one no resource metadata names (${resource} publishes none: a 2025-03-26 server): ` +
          'its credentials are not sent there (set clientIssuer to it if that server registered the client)',
        { step: 'registration' },
      );
    }
    if (bound === undefined) {
      await this.#store.save(key, { boundIssuer: issuer });
      return;
    }
    if (bound !== issuer) throw this.#refusal(issuer, bound, resource, 'first use');
  }

  #refusal(issuer: string, bound: string, resource: string, how: string): OAuthError {
    return new OAuthError(
      `The pre-registered client ${JSON.stringify(this.#clientId)} belongs to the authorization server ${bound} ` +
        `(${how}), not to ${issuer}, which ${resource} names: its credentials are not sent there ` +
        '(configure a client registered with that server, and its clientIssuer)',
      { step: 'registration' },
    );
  }
}
