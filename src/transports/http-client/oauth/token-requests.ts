/**
 * The token endpoint requests of the OAuth client, made with oauth4webapi (which authenticates the
 * client and checks the answers): refresh (RFC 6749 §6), client credentials (§4.4), the JWT bearer grant
 * (RFC 7523: workload identity federation, SEP-1933), and enterprise-managed authorization (SEP-990: an
 * identity provider's ID token exchanged there for an ID-JAG, RFC 8693, then that assertion for an access
 * token). Each carries the RFC 8707 `resource` and a DPoP proof when the client uses DPoP; a
 * `use_dpop_nonce` answer is retried once with the server's nonce. A refused grant is never retried.
 * @module
 */
import * as oauth from 'oauth4webapi';
import type { AuthorizationServer } from './authorization-server.js';
import { clientSecretBasic, type ClientIdentity } from './client-authentication.js';
import type { DpopProver } from './dpop-prover.js';
import { libraryError } from './library-error.js';
import { OAuthError } from './oauth-error.js';
import { checkedUrl } from './oauth-http.js';
import type { StoredTokens } from './oauth-store.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** One authorization server's token endpoint, as this client uses it. */
export interface TokenEndpoint {
  server: AuthorizationServer;
  identity: ClientIdentity;
  fetcher: typeof fetch;
  /** Set when tokens are to be bound to a DPoP key. */
  dpop?: DpopProver | undefined;
  allowInsecureHttp: boolean;
}

/** What a grant asks for. */
export interface GrantRequest {
  /** The RFC 8707 resource indicator (the resource metadata's `resource`). */
  resource?: string | undefined;
  scope?: string | undefined;
}

type RequestOptions = oauth.TokenEndpointRequestOptions;

/** The latest time a `Date` holds, in ms since the epoch (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

/**
 * Sends a token request (`send`, given oauth4webapi's options) and reads its answer (`read`), with a DPoP
 * proof when the endpoint binds tokens, once more with the server's nonce if it asks for one.
 */
export async function tokenRequest(
  endpoint: TokenEndpoint,
  what: string,
  send: (options: RequestOptions) => Promise<Response>,
  read: (response: Response) => Promise<oauth.TokenEndpointResponse>,
): Promise<oauth.TokenEndpointResponse> {
  const url = checkedUrl(
    endpoint.server.token_endpoint,
    'The token endpoint',
    'token',
    endpoint.allowInsecureHttp,
  );
  for (let attempt = 0; ; attempt++) {
    const options: RequestOptions = {
      [oauth.customFetch]: endpoint.fetcher,
      [oauth.allowInsecureRequests]: true,
    };
    if (endpoint.dpop) options.headers = { dpop: await endpoint.dpop.proof('POST', url) };
    try {
      const response = await send(options);
      endpoint.dpop?.learnNonce(response, url);
      return await read(response);
    } catch (error) {
      if (endpoint.dpop && attempt === 0 && oauth.isDPoPNonceError(error)) continue;
      throw libraryError('token', what, error);
    }
  }
}

/** The tokens to keep from a token response (the refresh token and scope of `previous` when it has none). */
export function storedTokens(
  response: oauth.TokenEndpointResponse,
  issuer: string,
  requestedScope: string | undefined,
  previous?: StoredTokens,
): StoredTokens {
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  const scope = response.scope ?? requestedScope ?? previous?.scope;
  // A lifetime past what a Date can hold (`1e308`, which JSON would keep as null) is no known expiry.
  const now = Date.now();
  const expiresAt = response.expires_in === undefined ? undefined : now + response.expires_in * 1000;
  return {
    accessToken: response.access_token,
    tokenType: response.token_type === 'dpop' ? 'DPoP' : 'Bearer',
    issuer,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(expiresAt === undefined || expiresAt > MAX_DATE_MS ? {} : { expiresAt, obtainedAt: now }),
    ...(scope === undefined ? {} : { scope }),
    ...(requestedScope === undefined ? {} : { requestedScope }),
  };
}

function parameters(request: GrantRequest, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams(extra);
  if (request.resource !== undefined) params.set('resource', request.resource);
  if (request.scope !== undefined) params.set('scope', request.scope);
  return params;
}

/** Trades a refresh token for new tokens. */
export function refreshGrant(endpoint: TokenEndpoint, refreshToken: string, request: GrantRequest) {
  const { server, identity } = endpoint;
  return tokenRequest(
    endpoint,
    `Refreshing the access token at ${String(server.token_endpoint)}`,
    (options) =>
      oauth.refreshTokenGrantRequest(server, identity.client, identity.auth, refreshToken, {
        ...options,
        additionalParameters: parameters({ resource: request.resource }),
      }),
    (response) => oauth.processRefreshTokenResponse(server, identity.client, response),
  );
}

/** The client credentials grant: the client acts on its own behalf. */
export function clientCredentialsGrant(endpoint: TokenEndpoint, request: GrantRequest) {
  const { server, identity } = endpoint;
  return tokenRequest(
    endpoint,
    `The client credentials grant at ${String(server.token_endpoint)}`,
    (options) =>
      oauth.clientCredentialsGrantRequest(
        server,
        identity.client,
        identity.auth,
        parameters(request),
        options,
      ),
    (response) => oauth.processClientCredentialsResponse(server, identity.client, response),
  );
}

/** The JWT bearer grant (RFC 7523 §2.1): `assertion` is exchanged for an access token. */
export function jwtBearerGrant(endpoint: TokenEndpoint, assertion: string, request: GrantRequest) {
  const { server, identity } = endpoint;
  return tokenRequest(
    endpoint,
    `The JWT bearer grant at ${String(server.token_endpoint)}`,
    (options) =>
      oauth.genericTokenEndpointRequest(
        server,
        identity.client,
        identity.auth,
        JWT_BEARER_GRANT,
        parameters(request, { assertion }),
        options,
      ),
    (response) => oauth.processGenericTokenEndpointResponse(server, identity.client, response),
  );
}

/** The identity provider of enterprise-managed authorization (SEP-990). */
export interface IdentityProvider {
  /** Its token endpoint (RFC 8693 token exchange). */
  tokenEndpoint: string;
  /** Its issuer; default: the token endpoint's origin. */
  issuer?: string;
  /** This client's id at the identity provider. */
  clientId: string;
  /** This client's secret there, when it has one (sent with client_secret_basic). */
  clientSecret?: string;
  /** The user's ID token from the identity provider (a function is called for each exchange). */
  idToken: string | (() => string | Promise<string>);
}

/**
 * Enterprise-managed authorization (SEP-990): the identity provider exchanges the user's ID token for an
 * identity assertion JWT authorization grant (ID-JAG) for `endpoint`'s server and `request.resource`,
 * which the server then exchanges for an access token (the JWT bearer grant).
 */
export async function enterpriseManagedGrant(
  endpoint: TokenEndpoint,
  idp: IdentityProvider,
  request: GrantRequest,
): Promise<oauth.TokenEndpointResponse> {
  const tokenEndpoint = checkedUrl(
    idp.tokenEndpoint,
    "The identity provider's token endpoint",
    'token',
    endpoint.allowInsecureHttp,
  );
  const provider: oauth.AuthorizationServer = {
    issuer: idp.issuer ?? tokenEndpoint.origin,
    token_endpoint: tokenEndpoint.href,
  };
  const client: oauth.Client = { client_id: idp.clientId };
  const auth = idp.clientSecret === undefined ? oauth.None() : clientSecretBasic(idp.clientSecret);
  const subjectToken = typeof idp.idToken === 'function' ? await idp.idToken() : idp.idToken;
  const exchange = {
    server: provider as AuthorizationServer,
    identity: { client, auth, method: 'none' as const },
    fetcher: endpoint.fetcher,
    allowInsecureHttp: endpoint.allowInsecureHttp,
  };
  const grant = await tokenRequest(
    exchange,
    `The token exchange for an ID-JAG at ${tokenEndpoint.href}`,
    (options) =>
      oauth.genericTokenEndpointRequest(
        provider,
        client,
        auth,
        TOKEN_EXCHANGE_GRANT,
        parameters(request, {
          requested_token_type: ID_JAG_TOKEN_TYPE,
          audience: endpoint.server.issuer,
          subject_token: subjectToken,
          subject_token_type: ID_TOKEN_TYPE,
        }),
        options,
      ),
    // The ID-JAG is no access token: its token_type is N_A (RFC 8693 §2.2.1).
    (response) =>
      oauth.processGenericTokenEndpointResponse(provider, client, response, {
        recognizedTokenTypes: { n_a: () => undefined },
      }),
  );
  const issued = (grant as { issued_token_type?: unknown }).issued_token_type;
  if (issued !== undefined && issued !== ID_JAG_TOKEN_TYPE) {
    throw new OAuthError(`The identity provider issued a ${JSON.stringify(issued)}, not an ID-JAG`, {
      step: 'token',
    });
  }
  return jwtBearerGrant(endpoint, grant.access_token, request);
}
