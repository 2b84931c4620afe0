/**
 * The decision API: how a person (the console, a script, `toolwire approvals`) sees what waits for
 * approval and decides, over HTTP with JSON, with server-sent events for live changes. A web-standard
 * handler (`handle(Request): Response`), served beside the MCP endpoint. Here: the checks every request
 * passes, and the console's session; the endpoints are in decision-routes.ts and console-routes.ts, the
 * event streams in event-streams.ts.
 *
 * - `GET  /api/approvals`: the pending approvals; `GET /api/approvals/ID`: one, with its outcome once settled.
 * - `POST /api/approvals/ID/approve` `{ always?, alwaysForMs?, argumentsDigest? }`;
 *   `POST /api/approvals/ID/deny` `{ reason? }`: 404 for an unknown id, 409 for one already settled or a
 *   digest that is not the call's.
 * - `GET  /api/audit?limit=N&after=SEQ`: the latest audit records; `GET /api/upstreams`: their status;
 *   `POST /api/upstreams/NAME/sign-in` and `POST /api/sign-in/callback`: a person's sign-in to an
 *   OAuth-protected upstream (see console-routes.ts).
 * - `GET  /api/events`: server-sent events (`approval.pending`, `approval.decided`, `call.started`,
 *   `call.progress`, `call.finished`, `upstream.status`, `tools.changed`, `warning`, `audit`), after a
 *   `snapshot` of the pending approvals and upstreams.
 * - The console's endpoints (tools, calls, resources: see console-routes.ts), and its session:
 *   `POST /api/session` `{ token, name? }` sets the session cookie, `GET` says who it is (`{ signedIn: false }`
 *   to a request with no credentials: no 401), `DELETE` ends it.
 *
 * Every request is checked, in this order: Host and Origin (403; loopback names by default), then the
 * credentials (401): `Authorization: Bearer <token>` — the token the gateway generated at start, or one the
 * given verifier accepts for a principal with the deciding or the watching role — or the console's session
 * cookie. A POST must be `application/json` (415): no HTML form can send one, and a page elsewhere cannot
 * send the Authorization header without a CORS preflight, which this API never grants. A POST or DELETE
 * that a cookie authenticates must also carry `X-Toolwire-Console: 1` (another site cannot add it without a
 * preflight either) and, when the browser sends them, `Sec-Fetch-Site: same-origin` and an Origin that is
 * the API's own — that of the Host header as received, its scheme `X-Forwarded-Proto`'s only when
 * `trustForwardedProto` says so — or one `allowedOrigins` lists (403 otherwise). A watcher may only read
 * (403 for anything else).
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errorMessage, LocalErrorCode, ToolwireError } from '../index.js';
import { OriginGuard, type OriginGuardOptions, type TokenVerifier } from '../transports/http/index.js';
import { failure, json, readJson } from './api-json.js';
import { consoleRoute, type RouteContext } from './console-routes.js';
import { ConsoleSessions, loginLinkId, type ApiCaller } from './console-sessions.js';
import { decisionRoute } from './decision-routes.js';
import { EventStreams, type StreamOwner } from './event-streams.js';
import type { Gateway } from './gateway.js';

export interface DecisionApiOptions extends OriginGuardOptions {
  /** The bearer token callers present (default: 32 random bytes, base64url; read it from `api.token`). */
  token?: string;
  /**
   * Accept tokens this verifier accepts (the MCP endpoint's, e.g. `jwtVerifier`) from principals with
   * `role`, besides the API token.
   */
  verifier?: TokenVerifier;
  /** The role a verified principal needs to decide (default `approver`). */
  role?: string;
  /** The role a verified principal needs to watch: read everything, decide nothing (default `watcher`). */
  watchRole?: string;
  /** Where the API lives (default `/api`). */
  basePath?: string;
  /** Event streams open at once (default 16; more get 503). A quarter of them is kept for deciders. */
  maxEventStreams?: number;
  /**
   * Take the scheme browsers reach the API by from `X-Forwarded-Proto` (its first value; default false).
   * Set it only behind a proxy that sets that header itself (a TLS terminator): the CSRF check then expects
   * an `https://` Origin, and the session cookie is `Secure`.
   */
  trustForwardedProto?: boolean;
  /**
   * Event streams one caller may hold at once (default 4; more get 429): a console session (every tab of one
   * browser) or a bearer principal.
   */
  maxEventStreamsPerCaller?: number;
}

/** Who a request comes from, and what its event stream would last as long as. */
interface Authenticated {
  caller: ApiCaller;
  owner: StreamOwner;
}

const STATUS_OF_CODE: Record<string, number> = {
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_SETTLED: 409,
  APPROVAL_MISMATCH: 409,
  TOOL_NOT_FOUND: 404,
  UPSTREAM_NOT_FOUND: 404,
  SIGN_IN_UNAVAILABLE: 409,
  SIGN_IN_NOT_FOUND: 404,
  SIGN_IN_FAILED: 502,
};
/** When a client may try again after a shared store (Redis) could not be reached, in seconds. */
const STORE_RETRY_AFTER_S = '1';

/** What a cookie-authenticated request that changes something must carry (CSRF). */
const CONSOLE_HEADER = 'x-toolwire-console';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export class DecisionApi {
  /** The API token (generated unless given). */
  readonly token: string;
  readonly basePath: string;
  readonly #gateway: Gateway;
  readonly #guard: OriginGuard;
  readonly #tokenDigest: Buffer;
  readonly #options: DecisionApiOptions;
  readonly #streams: EventStreams;
  /** The console's sessions and one-time login tokens. */
  readonly sessions: ConsoleSessions;

  constructor(gateway: Gateway, options: DecisionApiOptions = {}) {
    this.#gateway = gateway;
    this.#options = options;
    this.token = options.token ?? randomBytes(32).toString('base64url');
    this.#tokenDigest = digest(this.token);
    this.basePath = (options.basePath ?? '/api').replace(/\/+$/, '');
    this.#guard = new OriginGuard(options);
    this.sessions = new ConsoleSessions(this.token);
    this.#streams = new EventStreams(gateway, options);
  }

  /** Whether a request's path is the API's (so that a server can route it here). */
  owns(path: string): boolean {
    return path === this.basePath || path.startsWith(`${this.basePath}/`);
  }

  async handle(request: Request): Promise<Response> {
    const refused = this.#guard.check(request.headers.get('host'), request.headers.get('origin'));
    if (refused) return failure(403, 'FORBIDDEN', refused);
    const url = this.#publicUrl(request);
    let parts: string[];
    try {
      parts = url.pathname.slice(this.basePath.length).split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return failure(400, 'INVALID_REQUEST', 'The path is not valid percent-encoding');
    }
    const changes = request.method !== 'GET' && request.method !== 'HEAD';
    if (parts[0] === 'session' && parts.length === 1 && request.method === 'POST') {
      return this.#csrf(request) ?? this.#signIn(request);
    }
    // "Who is signed in?" asked with no credentials at all (the console's first question, before anyone
    // signed in) has an answer, nobody, not a 401: a browser logs every 401 as an error.
    if (
      parts[0] === 'session' &&
      parts.length === 1 &&
      request.method === 'GET' &&
      this.#anonymous(request)
    ) {
      return json(200, { signedIn: false });
    }
    let authenticated: Authenticated | undefined;
    try {
      authenticated = await this.#authenticate(request);
    } catch (error) {
      return this.#failed(error, request);
    }
    if (authenticated === undefined) {
      return failure(401, 'UNAUTHORIZED', 'Send the API token: Authorization: Bearer <token>', {
        'www-authenticate': 'Bearer realm="toolwire-gateway"',
      });
    }
    const { caller, owner } = authenticated;
    if (changes && caller.via === 'cookie') {
      const forged = this.#csrf(request);
      if (forged) return forged;
    }
    if (parts[0] === 'session' && parts.length === 1) {
      try {
        return await this.#session(request, caller);
      } catch (error) {
        return this.#failed(error, request);
      }
    }
    if (changes && !caller.canDecide) {
      return failure(403, 'FORBIDDEN', `${caller.by} may watch but not decide or change anything`);
    }
    try {
      const context: RouteContext = {
        request,
        url,
        parts,
        caller,
        body: () => readJson(request),
        reply: (status, body) => json(status, body),
        fail: (status, code, message) => failure(status, code, message),
      };
      const routed = await consoleRoute(this.#gateway, context);
      return (
        routed ?? (await decisionRoute(this.#gateway, context, () => this.#streams.open(request, owner)))
      );
    } catch (error) {
      return this.#failed(error, request);
    }
  }

  /**
   * The answer for what a request's handling threw. A shared store's failure says which store and operation
   * failed, never why (Redis's reply, where Redis is): the gateway's `reportError` hears the whole error.
   */
  #failed(error: unknown, request: Request): Response {
    if (error instanceof ToolwireError && error.code === LocalErrorCode.StoreUnavailable) {
      const { pathname } = new URL(request.url);
      this.#gateway.reportError(error, `the decision API answered ${request.method} ${pathname} with 503`);
      const details = error.details as { store?: unknown; operation?: unknown } | undefined;
      const named = typeof details?.store === 'string' && typeof details.operation === 'string';
      const message = named
        ? `${String(details.store)}: ${String(details.operation)} failed; try again later`
        : 'A shared store failed; try again later';
      const said = named ? { store: details.store, operation: details.operation } : {};
      return json(
        503,
        { error: { code: error.code, message, ...said } },
        { 'retry-after': STORE_RETRY_AFTER_S },
      );
    }
    if (error instanceof ToolwireError) {
      return failure(STATUS_OF_CODE[error.code] ?? 400, error.code, error.message);
    }
    return failure(500, 'INTERNAL', errorMessage(error));
  }

  /** Ends every event stream. */
  close(): void {
    this.#streams.close();
  }

  /**
   * Who the request comes from, and how long what it opens may last, or undefined when its credentials are
   * missing or wrong.
   */
  async #authenticate(request: Request): Promise<Authenticated | undefined> {
    const header = request.headers.get('authorization');
    const approvals = this.#gateway.approvals;
    if (header === null) {
      const name = this.sessions.cookieName(request.headers.get('host'));
      const session = this.sessions.session(request.headers.get('cookie'), name);
      if (session === undefined || (await approvals.endedSessions.ended(session.id, session.exp)))
        return undefined;
      const { caller, id, exp } = session;
      const stillValid = async () => exp > Date.now() && !(await approvals.endedSessions.ended(id, exp));
      return {
        caller,
        owner: {
          key: `session:${id}`,
          canDecide: caller.canDecide,
          sessionId: id,
          expiresAt: exp,
          stillValid,
        },
      };
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    if (!token) return undefined;
    const verified = await this.#verify(token, request);
    if (verified === undefined) return undefined;
    const { by, canDecide, expiresAt } = verified;
    // The verifier is asked again at each keep-alive of a stream (a token revoked, a role taken away).
    const stillValid = async () => (await this.#verify(token, request)) !== undefined;
    return {
      caller: { by, canDecide, via: 'bearer' },
      owner: {
        key: `bearer:${by}`,
        canDecide,
        ...(expiresAt === undefined ? {} : { expiresAt }),
        stillValid,
      },
    };
  }

  /** Whether a request carries no credentials: no Authorization header, no session cookie of this port's. */
  #anonymous(request: Request): boolean {
    if (request.headers.get('authorization') !== null) return false;
    const name = this.sessions.cookieName(request.headers.get('host'));
    return !this.sessions.hasCookie(request.headers.get('cookie'), name);
  }

  /** Who a token names: the API token, or a principal the verifier accepts with a role of the API's. */
  async #verify(
    token: string,
    request: Request,
  ): Promise<{ by: string; canDecide: boolean; expiresAt?: number; apiToken?: true } | undefined> {
    if (timingSafeEqual(digest(token), this.#tokenDigest))
      return { by: 'api-token', canDecide: true, apiToken: true };
    const verifier = this.#options.verifier;
    if (!verifier) return undefined;
    try {
      const principal = await verifier(token, request);
      // An expired principal is refused, as the MCP endpoint refuses it (http-auth.ts).
      if (principal.expiresAt !== undefined && principal.expiresAt <= Date.now()) return undefined;
      const canDecide = principal.roles?.includes(this.#options.role ?? 'approver') === true;
      const canWatch = principal.roles?.includes(this.#options.watchRole ?? 'watcher') === true;
      if (!canDecide && !canWatch) return undefined;
      const who = { by: principal.subject, canDecide };
      return principal.expiresAt === undefined ? who : { ...who, expiresAt: principal.expiresAt };
    } catch {
      return undefined;
    }
  }

  /** A refusal when a cookie-authenticated change does not come from the console's own page. */
  #csrf(request: Request): Response | undefined {
    const forged = (why: string) => failure(403, 'FORBIDDEN', `Cross-site request refused: ${why}`);
    if (request.headers.get(CONSOLE_HEADER) !== '1') return forged(`send ${CONSOLE_HEADER}: 1`);
    const site = request.headers.get('sec-fetch-site');
    if (site !== null && site !== 'same-origin') return forged(`Sec-Fetch-Site is ${site}`);
    const origin = request.headers.get('origin');
    if (origin !== null && !this.#ownOrigin(origin.toLowerCase(), request))
      return forged(`Origin is ${origin}`);
    return undefined;
  }

  /**
   * Whether a browser's Origin is the API's own: the origin of the Host header as received (with the scheme
   * from `X-Forwarded-Proto` when `trustForwardedProto`), or one `allowedOrigins` lists.
   */
  #ownOrigin(origin: string, request: Request): boolean {
    if (origin === this.#publicUrl(request).origin) return true;
    return this.#options.allowedOrigins?.some((allowed) => allowed.toLowerCase() === origin) ?? false;
  }

  /** The request's URL as the browser sees it: its scheme from `X-Forwarded-Proto` when that is trusted. */
  #publicUrl(request: Request): URL {
    const url = new URL(request.url);
    if (!this.#options.trustForwardedProto) return url;
    const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
    return url;
  }

  /**
   * `POST /api/session` `{ token, name? }`: a one-time login token, the API token or a token the verifier
   * accepts, traded for the session cookie. The session is named by what signed it in: the link
   * (`console-link:ID`), the API token (`console:api-token`) or the verifier's principal. `name`, typed at
   * sign-in with a link or the API token, is the person's own claim, nothing checks it: it is put first, with
   * what signed in beside it (`console:NAME (link ID)`, `console:NAME (api-token)`); a principal's subject
   * needs none.
   */
  async #signIn(request: Request): Promise<Response> {
    const body = await readJson(request);
    if (body instanceof Response) return body;
    const { token, name } = body;
    if (typeof token !== 'string' || token === '' || token.length > 8192) {
      return failure(400, 'INVALID_REQUEST', 'token must be a non-empty string');
    }
    if (name !== undefined && !(typeof name === 'string' && /^[\p{L}\p{N} ._@-]{1,40}$/u.test(name))) {
      return failure(400, 'INVALID_REQUEST', 'name must be 1-40 letters, digits, spaces or . _ @ -');
    }
    let who: { by: string; canDecide: boolean; expiresAt?: number } | undefined;
    if (this.sessions.useLoginToken(token)) {
      // A link's session is named by the link (which the gateway printed it with), not by the console.
      const link = loginLinkId(token);
      who = { by: name ? `console:${name} (link ${link})` : `console-link:${link}`, canDecide: true };
    } else {
      const verified = await this.#verify(token, request);
      // The API token names no one: the session reads as the token's, a name typed with it as a claim.
      if (verified?.apiToken)
        who = { by: name ? `console:${name} (api-token)` : 'console:api-token', canDecide: true };
      else who = verified;
    }
    if (who === undefined) return failure(401, 'UNAUTHORIZED', 'The token is unknown, used or expired');
    const cookie = this.sessions.startCookie(
      this.sessions.cookieName(request.headers.get('host')),
      who,
      this.#publicUrl(request).protocol === 'https:',
      who.expiresAt,
    );
    return json(200, { by: who.by, canDecide: who.canDecide }, { 'set-cookie': cookie });
  }

  /**
   * `GET /api/session`: who this is (`signedIn: true`); `DELETE`: ends a cookie session, here and (stores shared) in every
   * instance: its cookie is refused from now on, wherever it comes from.
   */
  async #session(request: Request, caller: ApiCaller): Promise<Response> {
    if (request.method === 'GET') return json(200, { ...caller, signedIn: true });
    if (request.method !== 'DELETE') {
      return failure(405, 'METHOD_NOT_ALLOWED', 'Use GET, POST or DELETE', { allow: 'GET, POST, DELETE' });
    }
    const name = this.sessions.cookieName(request.headers.get('host'));
    if (caller.via === 'cookie') {
      const session = this.sessions.session(request.headers.get('cookie'), name);
      if (session) await this.#gateway.approvals.endedSessions.end(session.id, session.exp);
    }
    const secure = this.#publicUrl(request).protocol === 'https:';
    return json(200, { ended: true }, { 'set-cookie': this.sessions.endCookie(name, secure) });
  }
}
