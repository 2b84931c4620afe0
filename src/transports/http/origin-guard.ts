/**
 * DNS-rebinding protection: the Host header must name an allowed host, and an Origin header, when present,
 * an allowed origin or the origin of that host (the server's own pages, in http or https). On by default,
 * allowing only loopback names.
 * @module
 */

export interface OriginGuardOptions {
  /** Allowed Host header values, with or without a port (default: localhost, 127.0.0.1, [::1]). */
  allowedHosts?: readonly string[];
  /**
   * Allowed Origin values, e.g. `https://app.example.com` (default: http(s) origins on loopback names). The
   * origin of the request's own (allowed) Host is always allowed, in http or https.
   */
  allowedOrigins?: readonly string[];
  /** Turns the checks off (not recommended; for servers behind a proxy that checks them). */
  disabled?: boolean;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function hostName(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * Checks a request's Host and Origin headers against allow-lists (loopback names by default): what the
 * Streamable HTTP handler does first, for other endpoints served beside it (the gateway's decision API).
 */
export class OriginGuard {
  readonly #hosts: ReadonlySet<string>;
  readonly #hostsWithPort: ReadonlySet<string>;
  readonly #origins: ReadonlySet<string> | undefined;
  readonly #disabled: boolean;
  /** The last Host value found allowed: the next request from the same client names it too. */
  #allowedHost: string | undefined;

  constructor(options: OriginGuardOptions = {}) {
    const hosts = (options.allowedHosts ?? LOOPBACK).map((h) => h.toLowerCase());
    this.#hosts = new Set(hosts.filter((h) => hostName(h) === h));
    this.#hostsWithPort = new Set(hosts.filter((h) => hostName(h) !== h));
    this.#origins = options.allowedOrigins
      ? new Set(options.allowedOrigins.map((o) => o.toLowerCase()))
      : undefined;
    this.#disabled = options.disabled ?? false;
  }

  /** A reason to refuse the request, or undefined when it may proceed. */
  check(host: string | null, origin: string | null): string | undefined {
    if (this.#disabled) return undefined;
    if (host === null) return 'Missing Host header';
    if (host !== this.#allowedHost) {
      const h = host.toLowerCase();
      if (!this.#hostsWithPort.has(h) && !this.#hosts.has(hostName(h))) return `Host not allowed: ${host}`;
      this.#allowedHost = host;
    }
    if (origin === null) return undefined;
    const o = origin.toLowerCase();
    if (this.#origins?.has(o)) return undefined;
    const url = webOrigin(o);
    if (url && (sameHost(url, host.toLowerCase()) || (!this.#origins && LOOPBACK.includes(url.hostname)))) {
      return undefined;
    }
    return `Origin not allowed: ${origin}`;
  }
}

/** An http(s) Origin's URL, or undefined (`null`, another scheme, not a URL). */
function webOrigin(origin: string): URL | undefined {
  if (!origin.startsWith('http://') && !origin.startsWith('https://')) return undefined;
  try {
    return new URL(origin);
  } catch {
    return undefined;
  }
}

/**
 * Whether the Origin names the host the request was sent to (an allowed Host header, lower case): a page of
 * the server's own, in either scheme (behind a TLS terminator the browser is on https, the server on http).
 */
function sameHost(url: URL, host: string): boolean {
  if (url.host === host) return true;
  return url.port === '' && host === `${url.hostname}:${url.protocol === 'https:' ? '443' : '80'}`;
}
