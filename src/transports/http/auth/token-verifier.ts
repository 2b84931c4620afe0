/**
 * The seam between the HTTP transport and whatever issues credentials: a {@link TokenVerifier} turns the
 * bearer token of a request into a {@link Principal}, or refuses it with an {@link InvalidTokenError}.
 * {@link apiKeyVerifier} is the verifier for opaque tokens and API keys; `jwtVerifier` checks JWT access
 * tokens. Web-standard only (WebCrypto), so it runs on any runtime.
 * @module
 */
import type { HttpRequestLike } from '../http-exchange.js';
import { LocalErrorCode } from '../../../protocol/errors.js';
import type { Principal } from '../../../server/auth/principal.js';
import { TransportError } from '../../transport-error.js';

/**
 * Checks a bearer token and says who presented it. Called once per request with the raw token (never
 * logged nor stored by the transport) and the request, for verifiers that look at more than the token.
 *
 * To refuse a credential, throw an {@link InvalidTokenError}: its message is sent to the client as the
 * challenge's `error_description`, so it must say what is wrong without leaking anything ("token expired").
 * Any other error is treated as an invalid token as well, but its message is NOT sent to the client: the
 * client sees a generic description, and the error goes to `HttpAuthOptions.onVerifierError` if set.
 */
export type TokenVerifier = (token: string, request: HttpRequestLike) => Promise<Principal>;

/**
 * A bearer token was refused: malformed, expired, for another audience, badly signed, unknown. The message
 * is a client-safe description and becomes the `error_description` of the `invalid_token` challenge; keep
 * details for the `cause`.
 */
export class InvalidTokenError extends TransportError {
  override name = 'InvalidTokenError';

  constructor(description: string, options?: { cause?: unknown }) {
    super(LocalErrorCode.InvalidToken, description, options);
  }
}

/** What an API key stands for: a principal whose scopes may be left out (none). */
export type ApiKeyPrincipal = Omit<Principal, 'scopes'> & { readonly scopes?: readonly string[] };

/** Looks a key up (e.g. in a database by its hash); `undefined` when the key is unknown. */
export type ApiKeyLookup = (key: string, request: HttpRequestLike) => Promise<Principal | undefined>;

const encoder = new TextEncoder();

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/** Equal digests, compared in time that does not depend on where they differ. */
function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

function toPrincipal(entry: ApiKeyPrincipal): Principal {
  return { ...entry, scopes: [...(entry.scopes ?? [])] };
}

/**
 * A verifier for opaque tokens and API keys, from a table `{ [key]: principal }` or a lookup function.
 *
 * With a table, the presented token and every key are hashed with SHA-256 and the digests compared in
 * constant time, each against all keys, so neither the comparison nor which key matched shows in the
 * timing. Keys must be non-empty; principals need a `subject`. An unknown key is refused with
 * "unknown API key". With a function, the function decides (and owns its comparison); `undefined` refuses.
 *
 * @example
 * ```ts
 * const verifier = apiKeyVerifier({ [process.env.OPS_KEY!]: { subject: 'ops', scopes: ['tools:call'] } });
 * ```
 */
export function apiKeyVerifier(
  keys: Readonly<Record<string, ApiKeyPrincipal>> | ApiKeyLookup,
): TokenVerifier {
  if (typeof keys === 'function') {
    return async (token, request) => {
      const principal = await keys(token, request);
      if (principal === undefined) throw new InvalidTokenError('unknown API key');
      return principal;
    };
  }
  const entries = Object.entries(keys);
  for (const [key, entry] of entries) {
    if (key.length === 0)
      throw new TransportError(LocalErrorCode.InvalidDefinition, 'apiKeyVerifier: an API key is empty');
    if (typeof entry.subject !== 'string' || entry.subject.length === 0)
      throw new TransportError(LocalErrorCode.InvalidDefinition, 'apiKeyVerifier: a key has no subject');
  }
  const table = Promise.all(
    entries.map(async ([key, entry]) => ({ digest: await sha256(key), principal: toPrincipal(entry) })),
  );
  return async (token) => {
    const digest = await sha256(token);
    let found: Principal | undefined;
    for (const candidate of await table) {
      if (digestsEqual(digest, candidate.digest)) found = candidate.principal;
    }
    if (found === undefined) throw new InvalidTokenError('unknown API key');
    return found;
  };
}
