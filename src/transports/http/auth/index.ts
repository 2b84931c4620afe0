/**
 * OAuth 2.1 resource-server support for the HTTP transport: token verifiers (JWT, API keys), protected
 * resource metadata (RFC 9728) and `WWW-Authenticate` challenges. Everything exported here is public API.
 * @module
 */
export type { AuthRefusal, HttpAuthOptions } from './http-auth.js';
export {
  apiKeyVerifier,
  InvalidTokenError,
  type ApiKeyLookup,
  type ApiKeyPrincipal,
  type TokenVerifier,
} from './token-verifier.js';
export { jwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions } from './jwt-verifier.js';
export type { ProtectedResourceMetadataOptions } from './protected-resource-metadata.js';
export type { VerificationCacheOptions } from './verification-cache.js';
export type { BearerChallenge, BearerError } from './bearer-challenge.js';
