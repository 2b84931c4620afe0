/**
 * How a browser signs in to the decision API: it trades a token — a one-time login token (the
 * `/console#token=…` link the gateway prints), the API token, or one the gateway's verifier accepts — for
 * a session cookie that is HttpOnly (no script reads it) and SameSite=Strict (no other site's request
 * carries it). The cookie is signed (HMAC-SHA-256 with a key derived from the API token) and carries who
 * signed in, whether they may decide, when it expires, and a random session id: a gateway restarted with
 * the same API token (`TOOLWIRE_TOKEN`) keeps its sessions, and nothing about a live session is stored. A
 * session ended (signed out) is remembered by its id until it would have expired, in the gateway's grant
 * store (see `EndedSessions.end`), shared by the instances on Redis. One-time login tokens are kept (as
 * digests) until used or expired, at most 100.
 * @module
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Who makes a request of the decision API, and how. */
export interface ApiCaller {
  /**
   * Who decides: a principal's subject, `api-token` (the API token as a bearer), `console:api-token` (the API
   * token traded for a session), or `console-link:<id>` (a one-time login link's session: `loginLinkId`). A
   * name the person typed at sign-in is their own claim, nothing checks it: it comes first, with what signed
   * in beside it, `console:<name> (api-token)` or `console:<name> (link <id>)`.
   */
  by: string;
  /** Whether they may decide (approve, deny, change tools, call, cancel), not only watch. */
  canDecide: boolean;
  via: 'bearer' | 'cookie';
}

/** How long a session lasts (12 hours). */
export const SESSION_TTL_MS = 12 * 60 * 60_000;
/** How long a one-time login token may wait to be used (24 hours). */
const LOGIN_TTL_MS = 24 * 60 * 60_000;
const MAX_LOGIN_TOKENS = 100;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The public id of a one-time login token (or of the link that carries it, `…#token=…`): the first 8 hex
 * digits of its SHA-256, which the gateway prints beside the link and the decisions taken in the session it
 * starts carry (`console-link:<id>`), so that an audit trail tells one link's decisions from another's
 * without holding anything that signs in.
 */
export function loginLinkId(tokenOrLink: string): string {
  const hash = tokenOrLink.indexOf('#token=');
  const token = hash === -1 ? tokenOrLink : tokenOrLink.slice(hash + '#token='.length).split('&')[0]!;
  return digest(token).toString('hex').slice(0, 8);
}

/** A session a cookie carries: who, its id and when it expires (ms since the epoch). */
export interface ConsoleSession {
  caller: ApiCaller;
  id: string;
  exp: number;
}

export class ConsoleSessions {
  readonly #key: Buffer;
  /** Unused one-time login tokens: digest (hex) → expiry. */
  readonly #logins = new Map<string, number>();

  constructor(apiToken: string) {
    this.#key = createHmac('sha256', 'toolwire console session').update(apiToken).digest();
  }

  /** A new one-time login token (valid for 24 hours, until used). */
  mintLoginToken(): string {
    const token = randomBytes(24).toString('base64url');
    this.#logins.set(digest(token).toString('hex'), Date.now() + LOGIN_TTL_MS);
    if (this.#logins.size > MAX_LOGIN_TOKENS) {
      const oldest = this.#logins.keys().next();
      if (!oldest.done) this.#logins.delete(oldest.value);
    }
    return token;
  }

  /** Whether `token` is an unused, unexpired one-time login token; if so, it is used up now. */
  useLoginToken(token: string): boolean {
    const key = digest(token).toString('hex');
    const until = this.#logins.get(key);
    if (until === undefined) return false;
    this.#logins.delete(key);
    return until > Date.now();
  }

  /** The cookie's name: one per port, so that two gateways on one host keep their own sessions. */
  cookieName(host: string | null): string {
    const port = /:(\d{1,5})$/.exec(host ?? '')?.[1];
    return port === undefined ? 'toolwire_console' : `toolwire_console_${port}`;
  }

  /** The Set-Cookie value that starts a session for `caller` (until `expiresAt`, at most 12 hours). */
  startCookie(name: string, caller: Omit<ApiCaller, 'via'>, secure: boolean, expiresAt?: number): string {
    // One reading of the clock: Max-Age and the signed expiry agree to the millisecond.
    const now = Date.now();
    const exp = Math.min(expiresAt ?? Infinity, now + SESSION_TTL_MS);
    const sid = randomBytes(16).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({ by: caller.by, d: caller.canDecide ? 1 : 0, exp, sid }),
    ).toString('base64url');
    const value = `${payload}.${this.#sign(payload)}`;
    const maxAge = Math.max(0, Math.floor((exp - now) / 1000));
    return `${name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /** The Set-Cookie value that ends the session. */
  endCookie(name: string, secure: boolean): string {
    return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /**
   * Who the session a Cookie header carries under `name` is, when its signature holds and it has not
   * expired (whether it was ended is the decision API's to check: `session`).
   */
  read(cookieHeader: string | null, name: string): ApiCaller | undefined {
    return this.session(cookieHeader, name)?.caller;
  }

  /** Whether a Cookie header carries a cookie named `name` (a session's or not: `session` says). */
  hasCookie(cookieHeader: string | null, name: string): boolean {
    return cookieValue(cookieHeader, name) !== undefined;
  }

  /** The session a Cookie header carries under `name`, when its signature holds and it has not expired. */
  session(cookieHeader: string | null, name: string): ConsoleSession | undefined {
    const value = cookieValue(cookieHeader, name);
    if (value === undefined) return undefined;
    const dot = value.indexOf('.');
    if (dot === -1) return undefined;
    const payload = value.slice(0, dot);
    const signature = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#sign(payload), 'base64url');
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return undefined;
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        by?: unknown;
        d?: unknown;
        exp?: unknown;
        sid?: unknown;
      };
      const { by, exp, sid } = data;
      // A cookie without a session id (an older gateway's) could not be ended: it is not taken.
      if (typeof by !== 'string' || typeof exp !== 'number' || exp <= Date.now() || typeof sid !== 'string')
        return undefined;
      return { caller: { by, canDecide: data.d === 1, via: 'cookie' }, id: sid, exp };
    } catch {
      return undefined;
    }
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

/** One cookie's value from a Cookie header (linear in the header's length). */
function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null || header.length > 16_384) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
