/**
 * The authorization of the OAuth client for one MCP server (one protected resource): its record (tokens,
 * registrations, DPoP key), the credentials each request carries, and what it does when the server
 * refuses them — refresh (presenting the client the tokens were issued to, kept with them), or authorize
 * from scratch (discovery, client identity, the grant), or step up to more scopes. One flow at a time: requests that fail together wait for the same flow.
 * @module
 */
import type * as oauth from 'oauth4webapi';
import {
  legacyAuthorizationServer,
  requirePkce,
  type AuthorizationServer,
  type DiscoveredServer,
} from './authorization-server.js';
import { clientIdentity, type ClientCredentials } from './client-authentication.js';
import type { ClientBinding } from './client-binding.js';
import { issuedClient, resolveClient } from './client-registration.js';
import { DpopProver } from './dpop-prover.js';
import { clientSettings, needsPerson, runGrant, wantsDpop } from './grant-flow.js';
import { legacyDiscoveryRefusal } from './legacy-discovery-refusal.js';
import type { OAuthClientOptions } from './oauth-client-options.js';
import { OAuthError } from './oauth-error.js';
import { checkedUrl } from './oauth-http.js';
import type { ClientSource, OAuthRecord, OAuthStore, StoredClient, StoredTokens } from './oauth-store.js';
import { discoverProtectedResource, type ProtectedResource } from './protected-resource.js';
import type { ResourceChallenge } from './resource-challenge.js';
import { scopeCovers, selectScope } from './scope-selection.js';
import { refreshGrant, storedTokens, type TokenEndpoint } from './token-requests.js';

/** What every resource's authorization shares (from its `OAuthClient`). */
export interface AuthorizationHost {
  readonly options: OAuthClientOptions;
  readonly fetcher: typeof fetch;
  readonly store: OAuthStore;
  readonly allowInsecureHttp: boolean;
  /** The authorization server the pre-registered client belongs to (when `clientId` is set). */
  readonly binding: ClientBinding | undefined;
  /** The metadata of an authorization server (cached). */
  serverMetadata(issuer: string): Promise<AuthorizationServer | undefined>;
}

/** How long before its expiry an access token is refreshed, at most, in ms. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * How long before their expiry `tokens` are refreshed: 30 s, or half their lifetime when that is less (a
 * token that lives 10 s is refreshed once 5 s are left, not before every request); 30 s when their
 * lifetime is unknown (kept without `obtainedAt`).
 */
function refreshMargin(tokens: StoredTokens): number {
  const { expiresAt, obtainedAt } = tokens;
  if (expiresAt === undefined || obtainedAt === undefined) return EXPIRY_MARGIN_MS;
  return Math.min(EXPIRY_MARGIN_MS, Math.max(0, (expiresAt - obtainedAt) / 2));
}

/** Whether `tokens` expire within `marginMs` from now (held tokens of unknown lifetime never do). */
function expired(tokens: StoredTokens | undefined, marginMs = 0): boolean {
  return tokens?.expiresAt !== undefined && tokens.expiresAt - marginMs <= Date.now();
}

/** Whether a token request failed on the authorization server's error answer (4xx), not for want of one. */
function refused(error: unknown): boolean {
  const status = error instanceof OAuthError ? error.details.status : undefined;
  return status !== undefined && status >= 400 && status < 500;
}

/** A request the server refused, as the OAuth client sent it. */
export interface RefusedRequest {
  /** The access token it carried, if any. */
  sent: string | undefined;
  /** Whether a person may be asked to sign in for it. */
  interactive: boolean;
  /** Its `MCP-Protocol-Version` header, if it had one (the revision of its session). */
  revision: string | undefined;
  /** When it was handed to the OAuth client (`performance.now()`), before it was first sent. */
  startedAt: number;
}

/** The credentials of one request. */
export interface RequestCredentials {
  headers: Record<string, string>;
  /** The access token sent, if any. */
  token?: string;
}

export class ResourceAuthorization {
  readonly resource: URL;
  readonly #host: AuthorizationHost;
  readonly #key: string;
  #record: OAuthRecord | undefined;
  #loading: Promise<void> | undefined;
  /** The flow under way (refresh or authorization), which every refused request waits for. */
  #flow: Promise<boolean> | undefined;
  #dpop: DpopProver | undefined;
  /** The authorization server the last flow used, for refreshes. */
  #server: AuthorizationServer | undefined;
  /**
   * The last authorization after a 401 that failed (the person declined, or did not come back in time),
   * and when: a request started before it shares its failure instead of asking again.
   */
  #failure: { at: number; error: unknown } | undefined;

  constructor(host: AuthorizationHost, resource: URL) {
    this.#host = host;
    this.resource = resource;
    this.#key = `${resource.origin}${resource.pathname}${resource.search}`;
  }

  /** The tokens held, if any. */
  async tokens(): Promise<StoredTokens | undefined> {
    await this.#load();
    return this.#record?.tokens;
  }

  /** The `Authorization` (and `DPoP`) headers of one request, refreshing an expired token first. */
  async credentials(method: string, url: URL): Promise<RequestCredentials> {
    await this.#load();
    if (this.#flow) await this.#flow.catch(() => false);
    let tokens = this.#record?.tokens;
    if (tokens !== undefined && expired(tokens, refreshMargin(tokens))) {
      if (tokens?.refreshToken !== undefined) await this.#once(() => this.#refresh()).catch(() => false);
      tokens = this.#record?.tokens;
      if (expired(tokens)) return { headers: {} };
    }
    if (tokens === undefined) return { headers: {} };
    this.#requireSecureResource();
    const headers: Record<string, string> = { authorization: `${tokens.tokenType} ${tokens.accessToken}` };
    if (tokens.tokenType === 'DPoP') {
      const dpop = await this.#prover();
      headers.dpop = await dpop.proof(method, url, tokens.accessToken);
    }
    return { headers, token: tokens.accessToken };
  }

  /** Remembers a `DPoP-Nonce` the server sent. */
  learnNonce(response: Response, url: URL): void {
    this.#dpop?.learnNonce(response, url);
  }

  /**
   * The server refused `request` (401): refresh (when `refresh` and a refresh token is held), else
   * authorize again (unless the grant needs a person and the request is not `interactive`). Resolves
   * true when the request should be sent again. Requests refused together share one flow; one started
   * before an authorization that failed since (the person declined) shares that failure: a person is
   * asked once for them all, not once for each.
   */
  async recover(challenge: ResourceChallenge, request: RefusedRequest, refresh: boolean): Promise<boolean> {
    return this.#once(async () => {
      // Renewed meanwhile (tokens deleted meanwhile, or an expired token held but not sent, are no renewal).
      const held = this.#record?.tokens;
      if (held !== undefined && held.accessToken !== request.sent && !expired(held)) return true;
      if (
        refresh &&
        this.#record?.tokens?.refreshToken !== undefined &&
        (await this.#refresh().catch(() => false))
      )
        return true;
      if (!request.interactive && needsPerson(this.#host.options)) return false;
      const failure = this.#failure;
      if (failure !== undefined && request.startedAt <= failure.at) throw failure.error;
      try {
        await this.#authorize(challenge, true, request.revision);
      } catch (error) {
        this.#failure = { at: performance.now(), error };
        throw error;
      }
      return true;
    });
  }

  /**
   * The server wants more scopes (403 `insufficient_scope`) for `request`: authorize again for the union
   * of what was asked before and what the challenge names. Resolves false when that cannot help: the
   * challenge names no scope, or the token already has every scope it names.
   */
  async stepUp(challenge: ResourceChallenge, request: RefusedRequest): Promise<boolean> {
    return this.#once(async () => {
      const tokens = this.#record?.tokens;
      if (tokens?.accessToken !== request.sent) return true;
      if (challenge.scope === undefined || scopeCovers(tokens?.scope, challenge.scope)) return false;
      if (!request.interactive && needsPerson(this.#host.options)) return false;
      await this.#authorize(challenge, true, request.revision);
      return true;
    });
  }

  /**
   * Authorizes now. With the `challenge` of a 401, as `recover` would (without refreshing); without, by
   * discovery through the well-known URLs only: a server without protected resource metadata is then an
   * `OAuthError` (nothing says it wants a token). `scope` replaces the scopes of the challenge or metadata.
   */
  authorize(scope?: string, challenge?: ResourceChallenge): Promise<void> {
    return this.#once(async () => {
      await this.#load();
      const asked = { ...(challenge ?? { dpop: false }), ...(scope === undefined ? {} : { scope }) };
      await this.#authorize(asked, challenge !== undefined);
      return true;
    }).then(() => undefined);
  }

  /** Forgets everything kept for this server (tokens, registrations, DPoP key). */
  async forget(): Promise<void> {
    await this.#load();
    this.#record = {};
    this.#dpop = undefined;
    this.#server = undefined;
    await this.#host.store.delete(this.#key);
  }

  /**
   * Refuses to obtain or send a token for an MCP server reached over plain HTTP off this machine (a bearer
   * token must not cross the network in the clear), unless `allowInsecureHttp`.
   */
  #requireSecureResource(): void {
    checkedUrl(
      this.resource.href,
      'An MCP server given OAuth tokens',
      'discovery',
      this.#host.allowInsecureHttp,
    );
  }

  /** Runs `flow` unless one is under way, in which case its outcome is shared. */
  #once(flow: () => Promise<boolean>): Promise<boolean> {
    if (this.#flow) return this.#flow;
    const running = flow().finally(() => {
      if (this.#flow === running) this.#flow = undefined;
    });
    this.#flow = running;
    return running;
  }

  #load(): Promise<void> {
    this.#loading ??= (async () => {
      this.#record = (await this.#host.store.load(this.#key)) ?? {};
    })();
    return this.#loading;
  }

  async #save(): Promise<void> {
    await this.#host.store.save(this.#key, this.#record ?? {});
  }

  async #prover(): Promise<DpopProver> {
    if (this.#dpop) return this.#dpop;
    const record = (this.#record ??= {});
    this.#dpop = await DpopProver.create(record.dpopKey);
    if (record.dpopKey === undefined) {
      record.dpopKey = await this.#dpop.exportKey();
      await this.#save();
    }
    return this.#dpop;
  }

  /**
   * Refreshes the access token; resolves false when there is nothing to refresh with or it failed. The
   * tokens are dropped when the authorization server refused the refresh (an error answer, 4xx: RFC 6749
   * §5.2, `invalid_grant` …); when it could not be reached, did not answer in time or failed (5xx), they
   * are kept for the next try.
   */
  async #refresh(): Promise<boolean> {
    const tokens = this.#record?.tokens;
    if (tokens?.refreshToken === undefined) return false;
    this.#requireSecureResource();
    const server =
      this.#server?.issuer === tokens.issuer
        ? this.#server
        : ((await this.#host.serverMetadata(tokens.issuer).catch(() => undefined)) ??
          (await this.#originDefaults(tokens.issuer)));
    if (server === undefined) return false;
    const issued = await this.#issuedEndpoint(server, tokens);
    // The client the tokens were issued to cannot be presented here: they are kept for one that can.
    if (issued === undefined) return false;
    try {
      const response = await refreshGrant(issued.endpoint, tokens.refreshToken, {
        resource: tokens.resource,
      });
      await this.#keep(response, tokens.issuer, tokens.requestedScope, issued.client, tokens);
      return true;
    } catch (error) {
      if (refused(error)) {
        delete this.#record?.tokens;
        await this.#save();
      }
      return false;
    }
  }

  /**
   * The default endpoints of a 2025-03-26 server's origin, when `issuer` is this server's origin (its
   * tokens came from there: a client that signed in looked its metadata up there and found none); else
   * undefined. A later client refreshing them finds no metadata to look the issuer up by either.
   */
  async #originDefaults(issuer: string): Promise<AuthorizationServer | undefined> {
    if (issuer !== this.resource.origin) return undefined;
    const { fetcher, allowInsecureHttp } = this.#host;
    return (await legacyAuthorizationServer(this.resource, fetcher, allowInsecureHttp).catch(() => undefined))
      ?.metadata;
  }

  /**
   * Discovery, the client's identity, and the grant; keeps the tokens. `legacy`: a server without resource
   * metadata may be a 2025-03-26 server (it asked for a token: it sent a 401), unless its challenge or the
   * request's `revision` says otherwise (see `legacyDiscoveryRefusal`).
   */
  async #authorize(challenge: ResourceChallenge, legacy = true, revision?: string): Promise<void> {
    const { options, fetcher, allowInsecureHttp } = this.#host;
    this.#requireSecureResource();
    const record = (this.#record ??= {});
    const resource = await discoverProtectedResource(
      this.resource,
      challenge.resourceMetadata,
      fetcher,
      allowInsecureHttp,
    );
    if (resource === undefined) {
      const refusal = legacy
        ? legacyDiscoveryRefusal(this.resource, challenge.resourceMetadata, revision)
        : `${this.resource.href} publishes no protected resource metadata (RFC 9728): nothing to authorize for`;
      if (refusal !== undefined) throw new OAuthError(refusal, { step: 'discovery' });
    }
    const found = await this.#findServer(resource, record.tokens?.issuer);
    const server = found.metadata;
    // Refused before the client registers there: a person's sign-in needs PKCE.
    if (needsPerson(options) && !found.defaults) requirePkce(server);
    if (record.tokens !== undefined && record.tokens.issuer !== server.issuer) delete record.tokens; // SEP-2352
    const grant = options.grant ?? 'authorization_code';
    const scope = selectScope({
      challenged: challenge.scope,
      resourceScopes: resource?.scopesSupported,
      previous: record.tokens?.requestedScope,
      extra: options.scope,
      serverScopes: server.scopes_supported,
      offlineAccess: grant === 'authorization_code' && options.offlineAccess !== false,
    });
    const request = { resource: resource?.resource, scope };
    const { endpoint, client } = await this.#endpoint(
      server,
      wantsDpop(options.dpop, server, resource, challenge),
      needsPerson(options),
      resource !== undefined,
    );
    const response = await runGrant(endpoint, options, { ...request, defaults: found.defaults });
    this.#server = server;
    await this.#keep(response, server.issuer, scope, client, undefined, resource?.resource);
  }

  async #keep(
    response: oauth.TokenEndpointResponse,
    issuer: string,
    scope: string | undefined,
    client: StoredClient,
    previous?: StoredTokens,
    resource = previous?.resource,
  ): Promise<void> {
    const tokens = {
      ...storedTokens(response, issuer, scope, previous),
      ...(resource === undefined ? {} : { resource }),
      client,
    };
    if (tokens.tokenType === 'DPoP' && this.#dpop === undefined) {
      throw new OAuthError(
        `The authorization server ${issuer} issued a DPoP-bound token without a DPoP proof`,
        { step: 'token' },
      );
    }
    (this.#record ??= {}).tokens = tokens;
    await this.#save();
  }

  /** The authorization server: the resource metadata's (the one the tokens came from, if listed), or 2025-03-26's. */
  async #findServer(
    resource: ProtectedResource | undefined,
    current: string | undefined,
  ): Promise<DiscoveredServer> {
    if (resource === undefined)
      return legacyAuthorizationServer(this.resource, this.#host.fetcher, this.#host.allowInsecureHttp);
    const servers = resource.authorizationServers;
    const issuer = current !== undefined && servers.includes(current) ? current : (servers[0] as string);
    const metadata = await this.#host.serverMetadata(issuer);
    if (metadata === undefined) {
      throw new OAuthError(
        `The authorization server ${issuer} publishes no metadata (RFC 8414 or OpenID Connect Discovery)`,
        {
          step: 'discovery',
        },
      );
    }
    return { metadata, defaults: false };
  }

  /**
   * The token endpoint of `server` with this client's identity there (registering it if needed), and that
   * identity as kept with the tokens. `redirect`: the grant sends a person to the redirect URI (a
   * registration must name it). `named`: resource metadata named `server` (else it is a 2025-03-26
   * server's origin, to which pre-registered credentials go only when already bound to it).
   */
  async #endpoint(
    server: AuthorizationServer,
    dpop: boolean,
    redirect: boolean,
    named: boolean,
  ): Promise<{ endpoint: TokenEndpoint; client: StoredClient }> {
    const { options, fetcher, allowInsecureHttp } = this.#host;
    const record = (this.#record ??= {});
    const resolved = await resolveClient(
      clientSettings(options),
      server,
      record.registrations?.[server.issuer],
      redirect,
      fetcher,
      allowInsecureHttp,
    );
    if (resolved.source === 'pre-registered')
      await this.#host.binding?.check(server.issuer, this.resource.href, named);
    if (resolved.registration !== undefined) {
      record.registrations = { ...record.registrations, [server.issuer]: resolved.registration };
      await this.#save();
    }
    return this.#withClient(server, resolved.credentials, resolved.source, dpop);
  }

  /**
   * The token endpoint of `server` with the client `tokens` were issued to, for a refresh: never another
   * one, never a new registration (tokens kept before clients were kept with them: the client found
   * without registering). `undefined` when that client cannot be presented from here.
   */
  async #issuedEndpoint(
    server: AuthorizationServer,
    tokens: StoredTokens,
  ): Promise<{ endpoint: TokenEndpoint; client: StoredClient } | undefined> {
    const { options, fetcher, allowInsecureHttp } = this.#host;
    const settings = clientSettings(options);
    const registration = this.#record?.registrations?.[server.issuer];
    let credentials: ClientCredentials | undefined;
    let source = tokens.client?.source;
    if (tokens.client !== undefined) {
      credentials = issuedClient(tokens.client, settings, registration);
    } else {
      const unregistered = { ...server, registration_endpoint: undefined };
      const resolved = await resolveClient(
        settings,
        unregistered,
        registration,
        false,
        fetcher,
        allowInsecureHttp,
      ).catch(() => undefined);
      credentials = resolved?.credentials;
      source = resolved?.source;
    }
    if (credentials === undefined || source === undefined) return undefined;
    if (source === 'pre-registered' && credentials.clientId === options.clientId)
      await this.#host.binding?.check(server.issuer, this.resource.href);
    return this.#withClient(server, credentials, source, tokens.tokenType === 'DPoP');
  }

  async #withClient(
    server: AuthorizationServer,
    credentials: ClientCredentials,
    source: ClientSource,
    dpop: boolean,
  ): Promise<{ endpoint: TokenEndpoint; client: StoredClient }> {
    const { fetcher, allowInsecureHttp } = this.#host;
    const identity = await clientIdentity(credentials, server);
    const client = { clientId: credentials.clientId, source, tokenEndpointAuthMethod: identity.method };
    const endpoint = {
      server,
      identity,
      fetcher,
      allowInsecureHttp,
      ...(dpop ? { dpop: await this.#prover() } : {}),
    };
    return { endpoint, client };
  }
}
