/**
 * A {@link TokenVerifier} for JWT access tokens (RFC 9068) signed by an authorization server, checked with
 * `jose` against the server's JWKS: signature, algorithm, issuer, audience (this server, RFC 8707),
 * expiry and not-before, then mapped to a {@link Principal}. Web-standard only.
 * @module
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { LocalErrorCode } from '../../../protocol/errors.js';
import type { Principal } from '../../../server/auth/principal.js';
import { TransportError } from '../../transport-error.js';
import { InvalidTokenError, type TokenVerifier } from './token-verifier.js';

/** Asymmetric algorithms only: a resource server holds no secret that could forge its own tokens. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

export interface JwtVerifierOptions {
  /** The authorization server's JWKS endpoint (`jwks_uri`); keys are fetched on demand and cached. */
  jwksUrl?: string | URL;
  /** A fixed key set, instead of `jwksUrl`. Exactly one of the two is required. */
  jwks?: JSONWebKeySet;
  /** The accepted issuer(s) (`iss`), exactly as the authorization server states it. */
  issuer: string | string[];
  /** This server's own resource URL(s) (`aud`, RFC 8707), e.g. `https://mcp.example.com/mcp`. */
  audience: string | string[];
  /** Accepted `alg` values (default {@link DEFAULT_JWT_ALGORITHMS}). `none` is never accepted. */
  algorithms?: readonly string[];
  /** Leeway for `exp`/`nbf`/`iat`, in seconds (default 5). */
  clockToleranceSec?: number;
  /** Claims that must be present, besides `exp` (always required) and `iss`/`aud` (always checked). */
  requiredClaims?: readonly string[];
  /** Expected `typ` header, e.g. `at+jwt` (RFC 9068); not checked by default. */
  typ?: string;
  /**
   * The claim holding the scopes: a space-separated string or an array of strings. Default: `scope`, and
   * `scp` (string or array) when `scope` is absent.
   */
  scopeClaim?: string;
  /** The claim holding roles, a string array or a space-separated string (default `roles`). */
  rolesClaim?: string;
  /** The principal's subject from the claims (default `sub`). A token without a subject is refused. */
  subject?: (claims: Readonly<JWTPayload>) => string | undefined;
  /** Timeout of a JWKS fetch, in ms (default 5000; `jwksUrl` only). */
  jwksTimeoutMs?: number;
}

function words(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value as string[];
  return undefined;
}

function keySet(options: JwtVerifierOptions): JWTVerifyGetKey {
  if ((options.jwksUrl === undefined) === (options.jwks === undefined))
    throw new TransportError(
      LocalErrorCode.InvalidDefinition,
      'jwtVerifier: give exactly one of jwksUrl, jwks',
    );
  if (options.jwks !== undefined) return createLocalJWKSet(options.jwks);
  const url = new URL(options.jwksUrl ?? '');
  return createRemoteJWKSet(url, { timeoutDuration: options.jwksTimeoutMs ?? 5000 });
}

function nonEmpty(value: string | string[], name: string): string | string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((v) => typeof v !== 'string' || v.length === 0))
    throw new TransportError(LocalErrorCode.InvalidDefinition, `jwtVerifier: ${name} is required`);
  return value;
}

/** A client-safe description of why jose refused the token. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `token has no "${error.claim}" claim`;
    switch (error.claim) {
      case 'aud':
        return 'token audience does not match this server';
      case 'iss':
        return 'token issuer is not trusted';
      case 'nbf':
        return 'token is not yet valid';
      case 'iat':
        return 'token issue time is in the future';
      case 'typ':
        return 'token type is not accepted';
      default:
        return `token "${error.claim}" claim is invalid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'token algorithm is not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return 'token signing key is unknown';
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return 'token is malformed';
  if (error instanceof errors.JOSENotSupported) return 'token uses an unsupported algorithm or key';
  return 'token could not be verified';
}

/**
 * A verifier for JWT access tokens. The principal: `subject` from `sub` (or `options.subject`), `scopes`
 * from `scope`/`scp`, `roles`, `clientId` from `client_id` or `azp`, `expiresAt` from `exp` (ms), and every
 * claim in `claims`. Refusals are {@link InvalidTokenError}s with short descriptions ("token expired",
 * "token audience does not match this server"); the jose error is the `cause`.
 *
 * @example
 * ```ts
 * const verifier = jwtVerifier({
 *   jwksUrl: 'https://auth.example.com/.well-known/jwks.json',
 *   issuer: 'https://auth.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 * });
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const keys = keySet(options);
  const issuer = nonEmpty(options.issuer, 'issuer');
  const audience = nonEmpty(options.audience, 'audience');
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)].filter((a) => a !== 'none');
  const requiredClaims = [...new Set(['exp', ...(options.requiredClaims ?? [])])];
  const subjectOf = options.subject ?? ((claims: Readonly<JWTPayload>) => claims.sub);
  const rolesClaim = options.rolesClaim ?? 'roles';

  return async (token): Promise<Principal> => {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        requiredClaims,
        clockTolerance: options.clockToleranceSec ?? 5,
        ...(options.typ === undefined ? {} : { typ: options.typ }),
      }));
    } catch (error) {
      throw new InvalidTokenError(describe(error), { cause: error });
    }
    const subject = subjectOf(claims);
    if (typeof subject !== 'string' || subject.length === 0)
      throw new InvalidTokenError('token has no subject');
    const scopes =
      options.scopeClaim === undefined
        ? (words(claims['scope']) ?? words(claims['scp']) ?? [])
        : (words(claims[options.scopeClaim]) ?? []);
    const roles = words(claims[rolesClaim]);
    const clientId = [claims['client_id'], claims['azp']].find((v): v is string => typeof v === 'string');
    return {
      subject,
      scopes,
      ...(roles === undefined ? {} : { roles }),
      ...(clientId === undefined ? {} : { clientId }),
      ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp * 1000 } : {}),
      claims,
    };
  };
}
