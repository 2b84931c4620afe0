/**
 * oauth4webapi's failures as `OAuthError`s: the server's OAuth error (its code, description and the HTTP
 * status) when it answered with one, else the library's reason. Apart from `oauth-error.ts` so that the
 * transports, which only need `OAuthError`, do not load oauth4webapi.
 * @module
 */
import * as oauth from 'oauth4webapi';
import { errorMessage } from '../../../protocol/errors.js';
import { OAuthError, type OAuthStep } from './oauth-error.js';

/**
 * An `OAuthError` for a failure of oauth4webapi (or of the fetch under it) during `what`: the server's
 * OAuth error when it answered with one, else the library's reason. oauth4webapi's own errors are not kept
 * as the `cause`: theirs can hold the server's answer (an access token in a token response it refused, the
 * code of an authorization response), which a logged error must never show. Network failures are kept.
 */
export function libraryError(step: OAuthStep, what: string, error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? ` (${error.error_description})` : '';
    return new OAuthError(`${what} failed: HTTP ${error.status} ${error.error}${description}`, {
      step,
      error: error.error,
      status: error.status,
      ...(error.error_description ? { errorDescription: error.error_description } : {}),
    });
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    const description = error.error_description ? ` (${error.error_description})` : '';
    return new OAuthError(`${what} failed: the authorization server answered ${error.error}${description}`, {
      step,
      error: error.error,
      ...(error.error_description ? { errorDescription: error.error_description } : {}),
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return new OAuthError(`${what} failed: HTTP ${error.status} (the server refused the client)`, {
      step,
      status: error.status,
    });
  }
  const fromLibrary =
    error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError;
  return new OAuthError(`${what} failed: ${errorMessage(error)}`, { step }, fromLibrary ? undefined : error);
}
