/**
 * The icons of what an upstream lists (tools, prompts, resources, templates) that the gateway passes on:
 * only those whose `src` is an `https:`, `http:` or `data:` URI, as the spec has them. The spec has a client
 * reject icon URIs of unsafe schemes (`javascript:`, `file:`, `ftp:`, `ws:` …); the gateway is its
 * upstreams' client, and its callers' hosts may show what it lists as it lists it, so a hostile upstream's
 * `javascript:` link or `file://` path (which a host that fetched it could leak credentials to) stops here.
 * The rest of each icon is passed on as it is.
 * @module
 */
import type { Icon } from '../index.js';

const SAFE_SCHEMES = new Set(['https:', 'http:', 'data:']);

/** Whether an icon's `src` is a URI of a scheme the gateway passes on. */
function isSafe(icon: unknown): boolean {
  const src = (icon as { src?: unknown } | null)?.src;
  if (typeof src !== 'string') return true; // malformed: the server's own checks refuse it, saying why
  if (!URL.canParse(src)) return false;
  return SAFE_SCHEMES.has(new URL(src).protocol);
}

/**
 * `item` with only its safe icons (the same object when they all are, or it has none): `icons` left out
 * when none is left.
 */
export function withSafeIcons<T extends { icons?: Icon[] }>(item: T): T {
  const { icons } = item;
  if (!Array.isArray(icons) || icons.every(isSafe)) return item;
  const kept = icons.filter(isSafe);
  const { icons: _dropped, ...rest } = item;
  return (kept.length === 0 ? rest : { ...rest, icons: kept }) as T;
}
