/**
 * The OAuth 2.1 resource-server side of the HTTP transport (MCP authorization, 2025-06-18 onwards): serves
 * the protected resource metadata, takes the bearer token from the `Authorization` header (never from the
 * URL), has it verified, checks the required scopes, and answers refusals with 401/403/400 and a
 * `WWW-Authenticate` challenge pointing at the metadata. The token itself goes no further than the verifier.
 * @module
 */
import { JsonReply, isReply, type HttpRequestLike, type Reply } from '../http-exchange.js';
import { ErrorCode, LocalErrorCode } from '../../../protocol/errors.js';
import { classify } from '../../../protocol/jsonrpc.js';
import type { Principal } from '../../../server/auth/principal.js';
import type { ServerRuntime } from '../../../server/server-runtime.js';
import { TransportError } from '../../transport-error.js';
import { jsonResponse, jsonRpcErrorResponse } from '../http-status.js';
import { bearerChallenge, type BearerError } from './bearer-challenge.js';
import {
  PROTECTED_RESOURCE_WELL_KNOWN,
  metadataUrl,
  protectedResourceMetadata,
  resourceUrl,
  type ProtectedResourceMetadataOptions,
} from './protected-resource-metadata.js';
import { InvalidTokenError, type TokenVerifier } from './token-verifier.js';
import { VerificationCache, type VerificationCacheOptions } from './verification-cache.js';

/** A request the resource server refused, for the security log (never the credential). */
export interface AuthRefusal {
  /** 400 (token in the URL), 401 (no or bad token), 403 (insufficient scope), 404 (another subject's session). */
  readonly status: number;
  /** The Bearer error code, when there is one. */
  readonly error: BearerError | 'session_of_another_subject' | undefined;
  readonly description: string;
  readonly method: string;
  readonly path: string;
  /** The verified subject, when the token was good but not good enough (403, 404). */
  readonly subject?: string;
}

export interface HttpAuthOptions extends ProtectedResourceMetadataOptions {
  /** Checks the bearer token of each request. */
  verifier: TokenVerifier;
  /** Scopes every request needs; a principal without all of them gets 403 `insufficient_scope`. */
  requiredScopes?: readonly string[];
  /**
   * Sees the errors a verifier threw that were not {@link InvalidTokenError}s (a bug, an unreachable key
   * server), whose messages the client never sees; for logging.
   */
  onVerifierError?: (error: unknown) => void;
  /**
   * Every refused request (401, 403, a token in the URL, a session id used by another subject), for a
   * security log or alerting: what was refused and why, never the token.
   */
  onRefused?: (refusal: AuthRefusal) => void;
  /**
   * Remember successful verifications (keyed by the token's SHA-256, bounded in size and time) instead of
   * calling the verifier on every request. Off by default: a cached principal ignores revocation for up to
   * `ttlMs`, and a verifier that looks at more than the token (the request) is not asked again.
   */
  cache?: VerificationCacheOptions;
}

/** `token68` (RFC 9110 §11.2), the form of a bearer token (RFC 6750 §2.1). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?: |$)/;
const METADATA_HEADERS = { 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' };

const STATUS: Record<BearerError, number> = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
};

export class HttpAuth {
  readonly #options: HttpAuthOptions;
  readonly #endpoint: string;
  readonly #metadataPaths: ReadonlySet<string>;
  readonly #required: readonly string[];
  readonly #cache: VerificationCache | undefined;

  constructor(options: HttpAuthOptions, endpoint: string) {
    if (options.authorizationServers.length === 0)
      throw new TransportError(
        LocalErrorCode.InvalidDefinition,
        'HttpAuth: name at least one authorization server',
      );
    if (!endpoint.startsWith('/'))
      throw new TransportError(
        LocalErrorCode.InvalidDefinition,
        `HttpAuth: endpoint must be a path: ${endpoint}`,
      );
    this.#options = options;
    this.#endpoint = endpoint;
    this.#required = [...(options.requiredScopes ?? [])];
    this.#cache = options.cache === undefined ? undefined : new VerificationCache(options.cache);
    const paths = [
      PROTECTED_RESOURCE_WELL_KNOWN,
      `${PROTECTED_RESOURCE_WELL_KNOWN}${endpoint === '/' ? '' : endpoint}`,
    ];
    if (options.resource !== undefined) paths.push(new URL(metadataUrl(options.resource)).pathname);
    this.#metadataPaths = new Set(paths);
  }

  /**
   * The protected resource metadata, for a request on `/.well-known/oauth-protected-resource` or on that
   * path followed by the endpoint (or by the path of `resource`): 200 JSON for GET and HEAD, cacheable for
   * five minutes and readable from any origin; 204 for a CORS preflight (OPTIONS); 405 for other methods.
   * `undefined` for any other path. No credential is needed.
   */
  metadata(request: HttpRequestLike, path: string): Reply | undefined {
    if (!this.#metadataPaths.has(path)) return undefined;
    switch (request.method) {
      case 'GET':
      case 'HEAD': {
        const document = protectedResourceMetadata(this.#options, this.#resource(request));
        const response = jsonResponse(document, 200, METADATA_HEADERS);
        return request.method === 'GET' ? response : new JsonReply(200, response.headers.toObject(), null);
      }
      case 'OPTIONS':
        return new JsonReply(
          204,
          {
            ...METADATA_HEADERS,
            'access-control-allow-methods': 'GET, HEAD, OPTIONS',
            'access-control-allow-headers': '*',
          },
          null,
        );
      default:
        return jsonRpcErrorResponse(405, ErrorCode.InvalidRequest, 'Method not allowed', {
          allow: 'GET, HEAD, OPTIONS',
        });
    }
  }

  /**
   * Who sent the request, or the response refusing it:
   * - a token in the query string (`access_token`) → 400 `invalid_request` (URLs end up in logs);
   * - no credential (no header, an empty one, another scheme) → 401 without an error code;
   * - a malformed `Bearer` credential → 401 `invalid_request`;
   * - a token the verifier refuses (or an expired principal) → 401 `invalid_token`;
   * - a principal without every `requiredScopes` → 403 `insufficient_scope`.
   * Each 401 names the scopes to ask for: `requiredScopes`, else `scopesSupported`, when set.
   */
  async authenticate(request: HttpRequestLike): Promise<Principal | Reply> {
    if (new URL(request.url).searchParams.has('access_token'))
      return this.#refuse(
        request,
        'invalid_request',
        'access tokens are accepted in the Authorization header only',
      );
    const header = request.headers.get('authorization')?.trim() ?? '';
    if (header.length === 0) return this.#refuse(request, undefined, 'authorization required');
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      const scheme = SCHEME.exec(header)?.[1];
      if (scheme !== undefined && scheme.toLowerCase() !== 'bearer')
        return this.#refuse(request, undefined, 'authorization required');
      return this.#refuse(request, 'invalid_request', 'malformed Authorization header', 401);
    }
    const principal = await this.#verify(token, request);
    if (isReply(principal)) return principal;
    if (principal.expiresAt !== undefined && principal.expiresAt <= Date.now())
      return this.#refuse(request, 'invalid_token', 'token expired');
    const granted = new Set(principal.scopes);
    if (this.#required.some((scope) => !granted.has(scope)))
      return this.insufficientScope(
        this.#required,
        'the token lacks a required scope',
        request,
        principal.subject,
      );
    return principal;
  }

  /**
   * 403 `insufficient_scope` asking for `scopes` (step-up authorization), e.g. from a tool that needs more
   * than the endpoint does. `resource_metadata` is absolute: built from `resource`, or from the `request`'s
   * origin when `resource` is not set (without either, the challenge has no `resource_metadata`).
   */
  insufficientScope(
    scopes: readonly string[],
    description: string,
    request?: HttpRequestLike,
    subject?: string,
  ): Reply {
    if (request) this.refused(request, 403, 'insufficient_scope', description, subject);
    return this.#respond(this.#metadataUrl(request), 'insufficient_scope', scopes, description, 403, request);
  }

  /** The verified principal (from the cache when enabled and fresh), or the 401 refusing the token. */
  async #verify(token: string, request: HttpRequestLike): Promise<Principal | Reply> {
    const key = this.#cache === undefined ? undefined : await this.#cache.key(token);
    const cached = key === undefined ? undefined : this.#cache?.get(key);
    if (cached !== undefined) return cached;
    let principal: Principal;
    try {
      principal = await this.#options.verifier(token, request);
    } catch (error) {
      if (error instanceof InvalidTokenError) return this.#refuse(request, 'invalid_token', error.message);
      this.#options.onVerifierError?.(error);
      return this.#refuse(request, 'invalid_token', 'the access token could not be verified');
    }
    if (
      typeof principal.subject !== 'string' ||
      principal.subject.length === 0 ||
      !Array.isArray(principal.scopes)
    ) {
      this.#options.onVerifierError?.(new TypeError('TokenVerifier returned no subject or scopes'));
      return this.#refuse(request, 'invalid_token', 'the access token could not be verified');
    }
    if (key !== undefined) this.#cache?.set(key, principal);
    return principal;
  }

  #resource(request: HttpRequestLike): string {
    return resourceUrl(this.#options, request, this.#endpoint);
  }

  #metadataUrl(request: HttpRequestLike | undefined): string | undefined {
    if (this.#options.resource !== undefined) return metadataUrl(this.#options.resource);
    return request === undefined ? undefined : metadataUrl(this.#resource(request));
  }

  /**
   * A `tools/call` for a tool `principal` lacks scopes for: 403 `insufficient_scope` naming the scopes to
   * ask for (those held and those missing), before anything runs; undefined for any other request.
   */
  stepUp(
    server: ServerRuntime,
    request: HttpRequestLike,
    body: unknown,
    principal: Principal | undefined,
  ): Reply | undefined {
    const item = classify(body);
    if (item.kind !== 'request' || item.message.method !== 'tools/call') return undefined;
    const name = item.message.params?.name;
    const tool = typeof name === 'string' ? server.tools.get(name) : undefined;
    const refusal = tool && server.access.refusal(principal, tool);
    if (refusal?.code !== ErrorCode.Forbidden) return undefined;
    const needed = new Set([...(principal?.scopes ?? []), ...(tool?.access?.scopes ?? [])]);
    return this.insufficientScope([...needed], refusal.message, request, principal?.subject);
  }

  /** Reports a session id used by a subject other than the one that opened it (answered 404). */
  foreignSession(request: HttpRequestLike, principal: Principal | undefined): void {
    const why = 'a session id opened by another subject';
    this.refused(request, 404, 'session_of_another_subject', why, principal?.subject);
  }

  /** Reports a refusal to `onRefused` (a listener that throws is ignored). */
  refused(
    request: HttpRequestLike,
    status: number,
    error: AuthRefusal['error'],
    description: string,
    subject?: string,
  ): void {
    const listener = this.#options.onRefused;
    if (!listener) return;
    const path = new URL(request.url).pathname;
    try {
      listener({ status, error, description, method: request.method, path, ...(subject ? { subject } : {}) });
    } catch {
      // A logging hook must never change the answer.
    }
  }

  #refuse(
    request: HttpRequestLike,
    error: BearerError | undefined,
    description: string,
    status?: number,
  ): Reply {
    this.refused(request, status ?? (error ? STATUS[error] : 401), error, description);
    const scope = this.#required.length > 0 ? this.#required : (this.#options.scopesSupported ?? []);
    return this.#respond(
      this.#metadataUrl(request),
      error,
      scope,
      description,
      status ?? (error ? STATUS[error] : 401),
      request,
    );
  }

  #respond(
    resourceMetadata: string | undefined,
    error: BearerError | undefined,
    scope: readonly string[],
    description: string,
    status: number,
    request: HttpRequestLike | undefined,
  ): Reply {
    const challenge = bearerChallenge({
      ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
      scope,
      ...(error === undefined ? {} : { error, errorDescription: description }),
    });
    const message = status === 403 ? `Forbidden: ${description}` : `Unauthorized: ${description}`;
    return jsonRpcErrorResponse(
      status,
      ErrorCode.InvalidRequest,
      status === 400 ? `Bad request: ${description}` : message,
      {
        'www-authenticate': challenge,
      },
      request?.headers.get('mcp-protocol-version'),
    );
  }
}
