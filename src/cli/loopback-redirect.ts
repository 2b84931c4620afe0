/**
 * The redirect URI of `toolwire login` (RFC 8252 §7.3, a native app's loopback redirect): an HTTP
 * listener on 127.0.0.1 that waits for the browser to come back from the authorization server with the
 * code, and tells the person they may close the tab. The authorization URL is printed for them to open.
 * The port is 33418 when it is free (so a registration made with it can be used again), else any.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizeHandler } from '../transports/http-client/index.js';

/** The port tried first, so that the redirect URI (and a registration made for it) stays the same. */
export const DEFAULT_REDIRECT_PORT = 33418;
const CALLBACK_PATH = '/callback';

const PAGE = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${title} You may close this tab.</p>\n`;

export interface LoopbackRedirect {
  /** `http://127.0.0.1:PORT/callback`. */
  readonly redirectUrl: string;
  /** Prints the authorization URL on `print`, resolves with the URL the browser came back to. */
  readonly authorize: AuthorizeHandler;
  close(): Promise<void>;
}

/** Starts the listener (on `port`, else 33418 when free, else any free port). */
export async function startLoopbackRedirect(
  print: (line: string) => void,
  port?: number,
): Promise<LoopbackRedirect> {
  let waiting: ((url: string) => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || waiting === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    const failed = url.searchParams.has('error');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(PAGE(failed ? 'The sign-in did not succeed; see the terminal.' : 'Signed in to toolwire.'));
    const resolve = waiting;
    waiting = undefined;
    resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url ?? ''}`);
  });
  await listen(server, port ?? DEFAULT_REDIRECT_PORT).catch((error: NodeJS.ErrnoException) => {
    if (port !== undefined || error.code !== 'EADDRINUSE') throw error;
    return listen(server, 0);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${bound}${CALLBACK_PATH}`,
    authorize: (authorizationUrl, signal) =>
      new Promise<string>((resolve, reject) => {
        print(`Open this URL in a browser to sign in:\n\n  ${authorizationUrl.href}\n`);
        waiting = resolve;
        signal.addEventListener('abort', () => reject(new Error('nobody signed in in time')), { once: true });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
