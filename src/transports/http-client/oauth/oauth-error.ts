/**
 * The error of the OAuth client: which step failed (discovery, registration, authorization, a token
 * request), what the server said (its OAuth `error` code and description, the HTTP status) and why,
 * never a token or a secret.
 * @module
 */
import { LocalErrorCode, ToolwireError } from '../../../protocol/errors.js';

/** Where an OAuth flow failed. */
export type OAuthStep = 'discovery' | 'registration' | 'authorization' | 'token' | 'configuration';

/** What `OAuthError.details` holds. */
export interface OAuthErrorDetails {
  step: OAuthStep;
  /** The server's OAuth error code (`invalid_grant`, `access_denied`, …), when it sent one. */
  error?: string;
  errorDescription?: string;
  /** The HTTP status of the server's answer, when there was one. */
  status?: number;
  /** The URL that was asked, when one was. */
  url?: string;
}

/**
 * The OAuth client could not get credentials for a server. `code` is always `AUTHORIZATION_FAILED`;
 * `details.step` says where it failed and `details.error` what the server said, if anything.
 */
export class OAuthError extends ToolwireError {
  override name = 'OAuthError';
  declare readonly details: OAuthErrorDetails;

  constructor(message: string, details: OAuthErrorDetails, cause?: unknown) {
    super(LocalErrorCode.AuthorizationFailed, message, { details, cause });
  }
}
