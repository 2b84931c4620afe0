/**
 * The authorization code grant with PKCE (OAuth 2.1, MCP authorization): the user is sent to the
 * authorization endpoint (S256 code challenge, random `state`, the RFC 8707 `resource`, the scopes), the
 * application hands back the URL the browser was redirected to, and the answer is checked before the code
 * is redeemed: the RFC 9207 `iss` first — whenever the parameter is there, even empty, it must be the
 * server's issuer as is, and it is required when the server says it sends one — then the `state` and an
 * `error`.
 * @module
 */
import * as oauth from 'oauth4webapi';
import { errorMessage } from '../../../protocol/errors.js';
import { requirePkce } from './authorization-server.js';
import { libraryError } from './library-error.js';
import { OAuthError } from './oauth-error.js';
import { checkedUrl } from './oauth-http.js';
import { scopeList } from './scope-selection.js';
import { tokenRequest, type GrantRequest, type TokenEndpoint } from './token-requests.js';

/**
 * Sends the user to `authorizationUrl` (a browser, a printed link) and resolves with the URL the
 * authorization server redirected the browser to: the redirect URI with `code`, `state` and maybe `iss`
 * (or `error`). `signal` aborts when the OAuth client gives up waiting.
 */
export type AuthorizeHandler = (authorizationUrl: URL, signal: AbortSignal) => Promise<string | URL>;

export interface AuthorizationCodeRequest extends GrantRequest {
  redirectUrl: string;
  authorize: AuthorizeHandler;
  /** How long the user has to finish, in ms. */
  timeoutMs: number;
  /** The metadata was not published (2025-03-26 defaults): PKCE support cannot be checked. */
  defaults: boolean;
}

/** Runs the authorization code grant; resolves with the token endpoint's answer. */
export async function authorizationCodeGrant(
  endpoint: TokenEndpoint,
  request: AuthorizationCodeRequest,
): Promise<oauth.TokenEndpointResponse> {
  const { server, identity } = endpoint;
  if (!request.defaults) requirePkce(server);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = checkedUrl(
    server.authorization_endpoint,
    'The authorization endpoint',
    'authorization',
    endpoint.allowInsecureHttp,
  );
  const query = url.searchParams;
  query.set('response_type', 'code');
  query.set('client_id', identity.client.client_id);
  query.set('redirect_uri', request.redirectUrl);
  query.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  query.set('code_challenge_method', 'S256');
  query.set('state', state);
  if (request.scope !== undefined) query.set('scope', request.scope);
  if (request.resource !== undefined) query.set('resource', request.resource);
  // OpenID Connect asks for consent before it issues a refresh token for offline_access.
  if (scopeList(request.scope).includes('offline_access')) query.set('prompt', 'consent');

  const callback = await redirected(url, request);
  checkIssuer(callback.searchParams, server.issuer);
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(server, identity.client, callback, state);
  } catch (error) {
    throw libraryError('authorization', 'Checking the authorization response', error);
  }
  return tokenRequest(
    endpoint,
    `Redeeming the authorization code at ${String(server.token_endpoint)}`,
    (options) =>
      oauth.authorizationCodeGrantRequest(
        server,
        identity.client,
        identity.auth,
        params,
        request.redirectUrl,
        verifier,
        {
          ...options,
          ...(request.resource === undefined ? {} : { additionalParameters: { resource: request.resource } }),
        },
      ),
    (response) => oauth.processAuthorizationCodeResponse(server, identity.client, response),
  );
}

/**
 * RFC 9207 §2.4: an `iss` parameter, whatever its value (an empty one included), must be the issuer
 * exactly, and appear once. Checked before anything else in the response is looked at.
 */
function checkIssuer(params: URLSearchParams, issuer: string): void {
  const given = params.getAll('iss');
  if (given.length === 0 || (given.length === 1 && given[0] === issuer)) return;
  throw new OAuthError(
    `The authorization response names the issuer ${given.map((iss) => JSON.stringify(iss)).join(', ')}, not ${issuer}: refused`,
    { step: 'authorization' },
  );
}

/** Runs the application's handler; its answer must be the redirect URI with the response's parameters. */
async function redirected(url: URL, request: AuthorizationCodeRequest): Promise<URL> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  let answer: string | URL;
  try {
    answer = await Promise.race([
      request.authorize(url, signal),
      new Promise<never>((_resolve, reject) => {
        signal.addEventListener(
          'abort',
          () => reject(new Error(`no answer within ${request.timeoutMs} ms`)),
          { once: true },
        );
      }),
    ]);
  } catch (error) {
    throw new OAuthError(
      `The authorization was not completed: ${errorMessage(error)}`,
      { step: 'authorization' },
      error,
    );
  }
  let callback: URL;
  try {
    callback = new URL(answer);
  } catch {
    throw new OAuthError('The authorize handler did not return the URL the browser was redirected to', {
      step: 'authorization',
    });
  }
  const expected = new URL(request.redirectUrl);
  if (callback.origin !== expected.origin || callback.pathname !== expected.pathname) {
    throw new OAuthError(
      `The authorize handler returned ${callback.origin}${callback.pathname}, not the redirect URI ${expected.origin}${expected.pathname}`,
      { step: 'authorization' },
    );
  }
  return callback;
}
