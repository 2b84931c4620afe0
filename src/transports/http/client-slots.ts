/**
 * How many sessions (and stateless-era listen streams) each client holds, so that one client cannot
 * take them all and lock every other one out. A client is its address: IPv4 as it is, IPv6 by its /64
 * prefix (one host commonly holds a whole /64), IPv4-mapped IPv6 as the IPv4 address.
 * @module
 */
import type { HttpRequestLike } from './http-exchange.js';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** Whether an address is this machine's (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopback(address: string): boolean {
  const v4 = MAPPED_IPV4.exec(address)?.[1] ?? address;
  return v4.startsWith('127.') || address === '::1';
}

/** The key an address counts under: IPv4 as is, IPv6 by its /64 prefix. */
export function clientKey(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const zone = address.indexOf('%');
  const bare = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  const gap = bare.indexOf('::');
  const head = (gap === -1 ? bare : bare.slice(0, gap)).split(':').filter((g) => g !== '');
  const tail =
    gap === -1
      ? []
      : bare
          .slice(gap + 2)
          .split(':')
          .filter((g) => g !== '');
  const zeros = gap === -1 ? 0 : Math.max(0, 8 - head.length - tail.length);
  const groups = [...head, ...Array<string>(zeros).fill('0'), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The default client of a request: the peer's address as the node adapter saw it; none (not counted)
 * for a loopback peer — this machine, or a reverse proxy in front of the server, behind which every
 * client would share one address — or where the address is unknown (a web `Request`).
 */
export function peerAddress(request: HttpRequestLike): string | undefined {
  const address = request.remoteAddress;
  return address === undefined || isLoopback(address) ? undefined : address;
}

export class ClientSlots {
  readonly #max: number;
  readonly #held = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Clients holding at least one slot. */
  get clients(): number {
    return this.#held.size;
  }

  /**
   * Takes a slot for the client at `address` (undefined: an uncounted client): the key to give back
   * with `release`, or false when the client holds its maximum already.
   */
  take(address: string | undefined): string | undefined | false {
    if (address === undefined) return undefined;
    const key = clientKey(address);
    const held = this.#held.get(key) ?? 0;
    if (held >= this.#max) return false;
    this.#held.set(key, held + 1);
    return key;
  }

  release(key: string | undefined): void {
    if (key === undefined) return;
    const held = this.#held.get(key) ?? 0;
    if (held <= 1) this.#held.delete(key);
    else this.#held.set(key, held - 1);
  }
}
