/**
 * What the `OAuthClient`'s options make of one authorization: which grant runs (authorization code,
 * client credentials, JWT bearer, enterprise-managed), whether its tokens are bound to a DPoP key, and
 * what the client says about itself to authorization servers.
 * @module
 */
import type * as oauth from 'oauth4webapi';
import { authorizationCodeGrant } from './authorization-code-grant.js';
import type { AuthorizationServer } from './authorization-server.js';
import type { ClientSettings } from './client-registration.js';
import { DPOP_ALGORITHM } from './dpop-prover.js';
import type { OAuthClientOptions } from './oauth-client-options.js';
import { OAuthError } from './oauth-error.js';
import type { ProtectedResource } from './protected-resource.js';
import type { ResourceChallenge } from './resource-challenge.js';
import {
  JWT_BEARER_GRANT,
  clientCredentialsGrant,
  enterpriseManagedGrant,
  jwtBearerGrant,
  type GrantRequest,
  type TokenEndpoint,
} from './token-requests.js';

/** How long a person has to sign in, by default (ms). */
const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 300_000;

/** Runs the grant the options name at `endpoint`. */
export async function runGrant(
  endpoint: TokenEndpoint,
  options: OAuthClientOptions,
  request: GrantRequest & { defaults: boolean },
): Promise<oauth.TokenEndpointResponse> {
  const { resource, scope } = request;
  switch (options.grant) {
    case undefined:
    case 'authorization_code':
      return authorizationCodeGrant(endpoint, {
        resource,
        scope,
        redirectUrl: options.redirectUrl,
        authorize: options.authorize,
        timeoutMs: options.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS,
        defaults: request.defaults,
      });
    case 'client_credentials':
      return clientCredentialsGrant(endpoint, { resource, scope });
    case 'jwt_bearer': {
      const assertion =
        typeof options.assertion === 'function' ? await options.assertion() : options.assertion;
      return jwtBearerGrant(endpoint, assertion, { resource, scope });
    }
    case 'enterprise_managed':
      return enterpriseManagedGrant(endpoint, options.identityProvider, { resource, scope });
  }
}

/** Whether the grant needs a person (who may only be asked during an interactive request). */
export function needsPerson(options: OAuthClientOptions): boolean {
  return (options.grant ?? 'authorization_code') === 'authorization_code';
}

/**
 * Whether tokens are bound to a DPoP key (see `OAuthClientCommonOptions.dpop`): always with `true` or
 * when the resource requires it (an error if the authorization server cannot), never with `false`, and
 * with `'auto'` when the authorization server supports ES256 proofs and the resource takes them (its
 * challenge has the DPoP scheme, or its metadata lists ES256).
 */
export function wantsDpop(
  mode: boolean | 'auto' | undefined,
  server: AuthorizationServer,
  resource: ProtectedResource | undefined,
  challenge: ResourceChallenge,
): boolean {
  if (mode === false) return false;
  const supported = server.dpop_signing_alg_values_supported?.includes(DPOP_ALGORITHM) === true;
  const required = mode === true || resource?.dpopBoundAccessTokensRequired === true;
  if (required && !supported) {
    throw new OAuthError(
      `The authorization server ${server.issuer} does not support DPoP proofs with ${DPOP_ALGORITHM}`,
      { step: 'discovery' },
    );
  }
  if (required) return true;
  const resourceTakesDpop =
    challenge.dpop || resource?.dpopSigningAlgValuesSupported?.includes(DPOP_ALGORITHM) === true;
  return supported && resourceTakesDpop;
}

/** What the options say about the client, for `resolveClient`. */
export function clientSettings(options: OAuthClientOptions): ClientSettings {
  const grant = options.grant ?? 'authorization_code';
  const grantTypes =
    grant === 'authorization_code'
      ? ['authorization_code', 'refresh_token']
      : grant === 'client_credentials'
        ? ['client_credentials']
        : [JWT_BEARER_GRANT];
  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    privateKey: options.privateKey,
    signingAlgorithm: options.signingAlgorithm,
    tokenEndpointAuthMethod: options.tokenEndpointAuthMethod,
    clientMetadataUrl: options.clientMetadataUrl,
    clientMetadata: options.clientMetadata,
    redirectUrl:
      options.grant === undefined || options.grant === 'authorization_code' ? options.redirectUrl : undefined,
    grantTypes,
  };
}
