/**
 * What a protected resource's 401 or 403 says to an OAuth client (RFC 6750 §3, RFC 9449 §7.1,
 * RFC 9728 §5.1): the `Bearer` or `DPoP` challenge of its `WWW-Authenticate` header — the error, the
 * scope to ask for, where the resource's metadata is — and whether the server takes DPoP proofs.
 * @module
 */
import { parseWwwAuthenticate, type BearerChallenge } from '../www-authenticate.js';

/** A resource server's challenge, from its `Bearer` or `DPoP` `WWW-Authenticate` challenges. */
export interface ResourceChallenge extends BearerChallenge {
  /** The server offered a `DPoP` challenge: it takes DPoP-bound tokens. */
  dpop: boolean;
}

/** The longest `WWW-Authenticate` value looked at; the rest is ignored. */
const MAX_HEADER_CHARS = 8192;

/** The challenge of a response (empty when it has no `Bearer` or `DPoP` challenge). */
export function resourceChallenge(response: Response): ResourceChallenge {
  const header = response.headers.get('www-authenticate')?.slice(0, MAX_HEADER_CHARS);
  const challenges = header ? parseWwwAuthenticate(header) : [];
  const bearer = challenges.find((challenge) => challenge.scheme === 'bearer');
  const dpop = challenges.find((challenge) => challenge.scheme === 'dpop');
  // The challenge that names an error speaks for the response; else Bearer's parameters, else DPoP's.
  const chosen = [dpop, bearer].find((challenge) => challenge?.params.error !== undefined) ?? bearer ?? dpop;
  const params = chosen?.params ?? {};
  const resourceMetadata =
    params.resource_metadata ?? bearer?.params.resource_metadata ?? dpop?.params.resource_metadata;
  const scope = params.scope ?? bearer?.params.scope ?? dpop?.params.scope;
  return {
    dpop: dpop !== undefined,
    ...(params.error === undefined ? {} : { error: params.error }),
    ...(params.error_description === undefined ? {} : { errorDescription: params.error_description }),
    ...(scope === undefined ? {} : { scope }),
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
  };
}

/** Whether the response asks for a DPoP proof with the nonce it sends (RFC 9449 §8, §9). */
export function wantsDpopNonce(response: Response, challenge: ResourceChallenge): boolean {
  return challenge.error === 'use_dpop_nonce' && response.headers.has('dpop-nonce');
}
