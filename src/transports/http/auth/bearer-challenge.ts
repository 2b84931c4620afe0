/**
 * The `WWW-Authenticate: Bearer …` challenge of a protected resource (RFC 6750 §3, RFC 9728 §5.1): where the
 * metadata lives, which scopes are needed, and what was wrong with the request.
 * @module
 */

/** The RFC 6750 §3.1 error codes. */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export interface BearerChallenge {
  /** The absolute URL of the protected resource metadata (RFC 9728 `resource_metadata`). */
  resourceMetadata?: string;
  /** Scopes needed to access the resource (a list, or one space-separated string); omitted when empty. */
  scope?: readonly string[] | string;
  /** Omitted when the request carried no credential at all (RFC 6750 §3.1). */
  error?: BearerError;
  /** A short, client-safe explanation; only sent with an `error`. */
  errorDescription?: string;
}

/**
 * A `quoted-string` (RFC 9110 §5.6.4): `\` and `"` escaped; control characters and anything outside
 * printable ASCII dropped, as RFC 6750 allows neither in its parameters.
 */
export function quotedString(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The value of a `WWW-Authenticate` header: `Bearer resource_metadata="…", scope="…", error="…",
 * error_description="…"`, each parameter only when given.
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.resourceMetadata !== undefined)
    params.push(`resource_metadata=${quotedString(challenge.resourceMetadata)}`);
  const scope = typeof challenge.scope === 'string' ? challenge.scope : (challenge.scope ?? []).join(' ');
  if (scope.length > 0) params.push(`scope=${quotedString(scope)}`);
  if (challenge.error !== undefined) {
    params.push(`error=${quotedString(challenge.error)}`);
    if (challenge.errorDescription !== undefined && challenge.errorDescription.length > 0)
      params.push(`error_description=${quotedString(challenge.errorDescription)}`);
  }
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}
