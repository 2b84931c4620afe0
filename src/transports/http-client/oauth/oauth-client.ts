/**
 * `OAuthClient`: the OAuth 2.1 client of MCP's authorization spec, for the HTTP client transports (their
 * `oauth` option) and anything else that talks to protected MCP servers. It sends each request with the
 * server's credentials and, when the server refuses them, does what the spec says: discovery (RFC 9728,
 * RFC 8414, OpenID Connect Discovery, the 2025-03-26 fallbacks), the client's identity (pre-registered,
 * Client ID Metadata Document, RFC 7591 registration), the grant (authorization code with PKCE, client
 * credentials, JWT bearer, enterprise-managed), refresh, step-up for more scopes, DPoP, and retries the
 * request. Built on oauth4webapi (authorization server requests and their checks) and jose (DPoP proofs,
 * private keys).
 *
 * @example
 * ```ts
 * const oauth = new OAuthClient({
 *   redirectUrl: 'http://127.0.0.1:8765/callback',
 *   authorize: async (url) => openBrowserAndWaitForRedirect(url), // resolves with the redirect's URL
 * });
 * await client.connect(new StreamableHttpClientTransport({ url: 'https://mcp.example.com/mcp', oauth }));
 * ```
 * @module
 */
import type { AuthorizationServer } from './authorization-server.js';
import type { OAuthClientOptions, OAuthRequest, OAuthStatus } from './oauth-client-options.js';
import { ClientBinding } from './client-binding.js';
import { OAuthError } from './oauth-error.js';
import { boundedFetch, checkedUrl, isLoopback } from './oauth-http.js';
import { MemoryOAuthStore, type OAuthStore } from './oauth-store.js';
import { resourceChallenge, wantsDpopNonce } from './resource-challenge.js';
import type * as Flows from './oauth-flows.js';
import { keepNewest } from '../../../protocol/keep-newest.js';
import { followSignal } from '../../../protocol/engine/cancellation.js';
import type { ResourceAuthorization } from './resource-authorization.js';

/**
 * The flows (and oauth4webapi and jose with them) are loaded when a server first refuses a request or a
 * method needs them: importing the transports, or sending with no token needed, costs nothing more.
 */
let flows: Promise<typeof Flows> | undefined;
const loadFlows = (): Promise<typeof Flows> => (flows ??= import('./oauth-flows.js'));

/** The store key of a resource: its URL without fragment. */
function resourceKey(resource: URL): string {
  return `${resource.origin}${resource.pathname}${resource.search}`;
}

/** How long authorization server metadata is reused, in ms. */
const METADATA_TTL_MS = 10 * 60_000;
/** The most authorization servers whose metadata is cached. */
const MAX_CACHED_SERVERS = 100;
/** Per request: how many times a 401 leads to a refresh or a new authorization, and DPoP nonce retries. */
const MAX_RECOVERIES = 2;
const MAX_NONCE_RETRIES = 2;
const DEFAULT_MAX_STEP_UPS = 2;

/**
 * An OAuth client for MCP servers. One instance can serve many servers: each MCP endpoint URL has its
 * own tokens (in `store`), and registrations are kept per authorization server.
 *
 * Refusals: a 401 refreshes the token (when a refresh token is held) or authorizes again from scratch
 * (re-reading the server's resource metadata, so a server that moved to another authorization server is
 * followed); a 403 `insufficient_scope` authorizes again for the union of the scopes held and those the
 * challenge names, at most `maxStepUps` times per request, and not at all when the token already has
 * them; a `use_dpop_nonce` answer is retried with the server's nonce. When nothing helps, the server's
 * answer is returned as is (the transport reports it); when a flow fails, `send` rejects with an
 * `OAuthError` (`AUTHORIZATION_FAILED`) naming the step and the server's error.
 */
export class OAuthClient {
  readonly #options: OAuthClientOptions;
  readonly #store: OAuthStore;
  readonly #fetcher: typeof fetch;
  readonly #allowInsecureHttp: boolean;
  readonly #maxStepUps: number;
  readonly #binding: ClientBinding | undefined;
  readonly #resources = new Map<string, Promise<ResourceAuthorization>>();
  readonly #servers = new Map<string, { at: number; metadata: Promise<AuthorizationServer | undefined> }>();

  constructor(options: OAuthClientOptions) {
    validate(options);
    this.#options = options;
    this.#store = options.store ?? new MemoryOAuthStore();
    const base = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    this.#fetcher = boundedFetch(base);
    this.#allowInsecureHttp = options.allowInsecureHttp === true;
    this.#maxStepUps = options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
    this.#binding =
      options.clientId === undefined
        ? undefined
        : new ClientBinding(this.#store, options.clientId, options.clientIssuer);
  }

  /**
   * Sends one request with the credentials of `request.resource`, and handles the server's refusals (see
   * the class). Resolves with the server's last answer.
   */
  async send(request: OAuthRequest): Promise<Response> {
    const authorization = await this.#resource(request.resource);
    const refused = {
      interactive: request.interactive !== false,
      revision: request.headers.get('mcp-protocol-version') ?? undefined,
      startedAt: performance.now(),
    };
    let recoveries = 0;
    let stepUps = 0;
    let nonceRetries = 0;
    for (;;) {
      const { headers: credentials, token } = await untilAborted(
        authorization.credentials(request.method, request.url),
        request.signal,
      );
      const headers = new Headers(request.headers);
      for (const [name, value] of Object.entries(credentials)) headers.set(name, value);
      const response = await request.fetch(request.url, {
        method: request.method,
        headers,
        body: request.body,
        signal: request.signal,
      });
      authorization.learnNonce(response, request.url);
      if (response.status !== 401 && response.status !== 403) return response;
      const challenge = resourceChallenge(response);
      let again = false;
      try {
        if (response.status === 401 && token !== undefined && wantsDpopNonce(response, challenge)) {
          again = nonceRetries++ < MAX_NONCE_RETRIES;
        } else if (response.status === 401) {
          again =
            recoveries < MAX_RECOVERIES &&
            (await untilAborted(
              authorization.recover(challenge, { ...refused, sent: token }, recoveries === 0),
              request.signal,
            ));
          recoveries++;
        } else if (challenge.error === 'insufficient_scope' && stepUps < this.#maxStepUps) {
          stepUps++;
          again = await untilAborted(
            authorization.stepUp(challenge, { ...refused, sent: token }),
            request.signal,
          );
        }
      } catch (error) {
        await response.body?.cancel().catch(() => undefined);
        throw error;
      }
      if (!again) return response;
      await response.body?.cancel().catch(() => undefined);
    }
  }

  /**
   * Authorizes for the MCP server at `resource` now, without waiting for a request to be refused (the
   * CLI's `login`). With `challenge`, a 401 the server sent: as if a request had been refused with it
   * (its `resource_metadata` and `scope` are used, and a server without resource metadata is a 2025-03-26
   * server when its challenge names none). Without: discovery through the well-known URLs, and a server
   * that publishes no resource metadata is an `OAuthError`. `scope` replaces the scopes the challenge or
   * metadata name.
   */
  authorize(resource: string | URL, options: { scope?: string; challenge?: Response } = {}): Promise<void> {
    const challenge = options.challenge === undefined ? undefined : resourceChallenge(options.challenge);
    return this.#resource(new URL(resource)).then((authorization) =>
      authorization.authorize(options.scope, challenge),
    );
  }

  /** What is held for the MCP server at `resource` (never the tokens), or `undefined` when nothing is. */
  async status(resource: string | URL): Promise<OAuthStatus | undefined> {
    const tokens = await (await this.#resource(new URL(resource))).tokens();
    if (tokens === undefined) return undefined;
    return {
      issuer: tokens.issuer,
      tokenType: tokens.tokenType,
      refreshable: tokens.refreshToken !== undefined,
      ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
      ...(tokens.expiresAt === undefined ? {} : { expiresAt: tokens.expiresAt }),
    };
  }

  /** Forgets the tokens, registrations and DPoP key kept for the MCP server at `resource`. */
  logout(resource: string | URL): Promise<void> {
    return this.#resource(new URL(resource)).then((authorization) => authorization.forget());
  }

  #resource(resource: URL): Promise<ResourceAuthorization> {
    const key = resourceKey(resource);
    let authorization = this.#resources.get(key);
    if (authorization === undefined) {
      authorization = loadFlows().then(
        ({ ResourceAuthorization }) =>
          new ResourceAuthorization(
            {
              options: this.#options,
              fetcher: this.#fetcher,
              store: this.#store,
              allowInsecureHttp: this.#allowInsecureHttp,
              binding: this.#binding,
              serverMetadata: (issuer) => this.#serverMetadata(issuer),
            },
            new URL(key),
          ),
      );
      this.#resources.set(key, authorization);
    }
    return authorization;
  }

  /** The metadata of an authorization server, fetched once per `METADATA_TTL_MS` (failures are not kept). */
  #serverMetadata(issuer: string): Promise<AuthorizationServer | undefined> {
    const cached = this.#servers.get(issuer);
    if (cached !== undefined && Date.now() - cached.at < METADATA_TTL_MS) return cached.metadata;
    const metadata = loadFlows().then(({ discoverAuthorizationServer }) =>
      discoverAuthorizationServer(issuer, this.#fetcher, this.#allowInsecureHttp),
    );
    this.#servers.set(issuer, { at: Date.now(), metadata });
    keepNewest(this.#servers, MAX_CACHED_SERVERS);
    metadata.then(
      (found) => found === undefined && this.#servers.delete(issuer),
      () => this.#servers.delete(issuer),
    );
    return metadata;
  }
}

/**
 * `work`, unless `signal` aborts first: then its reason. A flow is shared by every request it serves (and
 * bounded in time on its own): a request given up no longer waits for it, and the flow runs on for the rest.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = followSignal(signal, reject);
    work.then(resolve, reject).finally(stop);
  });
}

/** Refuses options that cannot work, at construction. */
function validate(options: OAuthClientOptions): void {
  const fail = (message: string) => new OAuthError(message, { step: 'configuration' });
  switch (options.grant) {
    case undefined:
    case 'authorization_code': {
      if (typeof options.authorize !== 'function')
        throw fail('The authorization code grant needs an authorize handler');
      let redirect: URL;
      try {
        redirect = new URL(options.redirectUrl);
      } catch {
        throw fail(`redirectUrl is not a URL: ${String(options.redirectUrl)}`);
      }
      if (redirect.hash !== '') throw fail('redirectUrl must not have a fragment');
      if (redirect.protocol === 'http:' && !isLoopback(redirect)) {
        throw fail('redirectUrl must be HTTPS, a loopback http URL, or a private-use scheme');
      }
      break;
    }
    case 'client_credentials':
      if (
        options.clientId === undefined ||
        (options.clientSecret === undefined && options.privateKey === undefined)
      ) {
        throw fail('The client credentials grant needs clientId and clientSecret or privateKey');
      }
      break;
    case 'jwt_bearer':
      if (options.assertion === undefined) throw fail('The JWT bearer grant needs an assertion');
      break;
    case 'enterprise_managed': {
      const idp = options.identityProvider;
      if (idp?.tokenEndpoint === undefined || idp.clientId === undefined || idp.idToken === undefined) {
        throw fail(
          'Enterprise-managed authorization needs identityProvider { tokenEndpoint, clientId, idToken }',
        );
      }
      break;
    }
    default:
      throw fail(`Unknown grant ${JSON.stringify((options as { grant: unknown }).grant)}`);
  }
  if (options.clientIssuer !== undefined && options.clientId === undefined) {
    throw fail('clientIssuer names the authorization server of clientId: it needs clientId');
  }
  if (options.clientMetadataUrl !== undefined) {
    const url = checkedUrl(options.clientMetadataUrl, 'clientMetadataUrl', 'configuration', false);
    if (url.protocol !== 'https:' || url.pathname === '/') {
      throw fail('clientMetadataUrl must be an HTTPS URL with a path (a Client ID Metadata Document)');
    }
  }
  const steps = options.maxStepUps;
  if (steps !== undefined && (!Number.isInteger(steps) || steps < 0))
    throw fail('maxStepUps must be an integer >= 0');
}
