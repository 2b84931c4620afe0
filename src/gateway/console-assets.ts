/**
 * Serves the web console (the files `npm run build` puts in dist/console) at `/console/`, with a strict
 * Content-Security-Policy: scripts, styles and fonts from the console's own origin only (no inline
 * script, no eval), images and audio from itself or `data:` URLs, requests to itself only, no frames,
 * no forms, no `<base>`, and Trusted Types required, so that no string ever becomes HTML or script. What
 * the console shows comes from upstream servers: it renders all of it as text, and this policy is the
 * second wall. Only the files found in the folder at the first request are served (read once, kept in
 * memory); Host and Origin are checked as for the API.
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OriginGuard } from '../transports/http/index.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

const HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** Where the built console is: beside the bundle (dist/console), or dist/console from the sources. */
export function defaultConsoleDir(): string {
  const beside = fileURLToPath(new URL('./console/', import.meta.url));
  if (existsSync(path.join(beside, 'index.html'))) return beside;
  return fileURLToPath(new URL('../../dist/console/', import.meta.url));
}

export class ConsoleAssets {
  readonly basePath = '/console';
  readonly #dir: string;
  readonly #guard: OriginGuard;
  #assets: Map<string, Asset> | undefined;

  constructor(dir: string, guard: OriginGuard) {
    this.#dir = dir;
    this.#guard = guard;
  }

  owns(pathname: string): boolean {
    return pathname === this.basePath || pathname.startsWith(`${this.basePath}/`);
  }

  handle(request: Request): Response {
    const refused = this.#guard.check(request.headers.get('host'), request.headers.get('origin'));
    if (refused) return text(403, refused);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return text(405, 'Use GET', { allow: 'GET, HEAD' });
    const { pathname } = new URL(request.url);
    if (pathname === this.basePath) {
      return new Response(null, { status: 308, headers: { ...HEADERS, location: `${this.basePath}/` } });
    }
    const assets = this.#load();
    if (assets.size === 0) return text(503, 'The console is not built: run npm run build');
    // The page the authorization server sends a person back to after signing in to an upstream is the
    // console itself, which hands its address to the API (the session cookie, SameSite=Strict, is not
    // sent with the authorization server's redirect, but is with the page's own requests).
    const file = pathname.slice(this.basePath.length + 1).replace(/^callback$/, '') || 'index.html';
    const asset = assets.get(file);
    if (!asset) return text(404, `No ${pathname}`);
    const hashed = file.startsWith('assets/');
    return new Response(request.method === 'HEAD' ? null : asset.body, {
      status: 200,
      headers: {
        ...HEADERS,
        'content-type': asset.type,
        'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-store',
      },
    });
  }

  /** The console's files (at most two levels deep, known types only), read once. */
  #load(): Map<string, Asset> {
    if (this.#assets) return this.#assets;
    const assets = new Map<string, Asset>();
    const walk = (relative: string, depth: number) => {
      let entries;
      try {
        entries = readdirSync(path.join(this.#dir, relative), { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory() && depth < 2) walk(name, depth + 1);
        const type = TYPES[path.extname(entry.name)];
        if (entry.isFile() && type) {
          assets.set(name, { body: new Uint8Array(readFileSync(path.join(this.#dir, name))), type });
        }
      }
    };
    walk('', 0);
    if (assets.size > 0) this.#assets = assets;
    return assets;
  }
}

function text(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, {
    status,
    headers: {
      ...HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    },
  });
}
