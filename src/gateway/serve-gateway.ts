/**
 * Serves a gateway on node:http: its MCP endpoint (Streamable HTTP and legacy HTTP+SSE, as `serveHttp`
 * does), its decision API and the web console beside it, on one port bound to 127.0.0.1 unless told
 * otherwise. A gateway
 * served over stdio still needs the API, alone (`mcp: false`): someone has to approve.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OriginGuard,
  StreamableHttpHandler,
  toNodeHandler,
  type StreamableHttpOptions,
} from '../transports/http/index.js';
import { ConsoleAssets, defaultConsoleDir } from './console-assets.js';
import { DecisionApi, type DecisionApiOptions } from './decision-api.js';
import type { Gateway } from './gateway.js';

export interface ServeGatewayOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: only this machine can connect. */
  host?: string;
  /**
   * The MCP endpoint's options (`/mcp` by default), or false for the API alone. Its `redis` defaults to
   * the gateway's `sharedSessions` (start the gateway first); its `allowedHosts` and `allowedOrigins` to the
   * configuration's `http` settings (as the API's and the console's do, and the API's `trustForwardedProto`).
   */
  mcp?: StreamableHttpOptions | false;
  /**
   * The decision API's options (`/api`). Its Host/Origin allow-lists default to the MCP endpoint's, and
   * with `mcp.auth` its verifier also admits principals with the deciding role (`api.role`, `approver`).
   */
  api?: DecisionApiOptions;
  /**
   * The web console at `/console/`: the built console's folder (default: the package's dist/console), or
   * false for none. It uses the API's Host/Origin allow-lists.
   */
  console?: { dir?: string } | false;
}

export interface GatewayHttpHandle {
  /** The MCP endpoint (undefined with `mcp: false`). */
  readonly url: string | undefined;
  /** The decision API, e.g. `http://127.0.0.1:3000/api`. */
  readonly apiUrl: string;
  readonly api: DecisionApi;
  readonly port: number;
  /**
   * The console's address with a new one-time login token (`…/console/#token=…`): opened once, it signs
   * the browser in (a session cookie) and the token is used up. Undefined with `console: false`.
   */
  consoleUrl(): string | undefined;
  /**
   * Stops listening and ends the API's event streams (the gateway itself stays open). With `graceMs`, the
   * MCP sessions first take no new requests and their running ones get that long to finish.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export async function serveGateway(
  gateway: Gateway,
  options: ServeGatewayOptions = {},
): Promise<GatewayHttpHandle> {
  // The configuration's `http` settings, under what the options say.
  const { allowedHosts, allowedOrigins, trustForwardedProto } = gateway.config.http ?? {};
  const listed = {
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
  };
  const mcpOptions = options.mcp === false ? undefined : { ...listed, ...options.mcp };
  const api = new DecisionApi(gateway, {
    ...listed,
    ...(mcpOptions?.allowedHosts ? { allowedHosts: mcpOptions.allowedHosts } : {}),
    ...(mcpOptions?.allowedOrigins ? { allowedOrigins: mcpOptions.allowedOrigins } : {}),
    ...(trustForwardedProto === undefined ? {} : { trustForwardedProto }),
    // The MCP endpoint's verifier also admits principals with the deciding role to the API.
    ...(mcpOptions?.auth ? { verifier: mcpOptions.auth.verifier } : {}),
    ...options.api,
  });
  // The gateway's shared sessions (its `redis`): any instance serves any handshake-era session.
  const shared = gateway.sharedSessions;
  const mcp = mcpOptions
    ? new StreamableHttpHandler(gateway.server, shared ? { redis: shared, ...mcpOptions } : mcpOptions)
    : undefined;
  const serveMcp = mcp ? toNodeHandler(mcp) : undefined;
  const serveApi = toNodeHandler({ handle: (request) => api.handle(request) });
  const assets =
    options.console === false
      ? undefined
      : new ConsoleAssets(
          options.console?.dir ?? defaultConsoleDir(),
          new OriginGuard({
            ...((options.api?.allowedHosts ?? mcpOptions?.allowedHosts ?? allowedHosts)
              ? { allowedHosts: options.api?.allowedHosts ?? mcpOptions?.allowedHosts ?? allowedHosts }
              : {}),
            ...((options.api?.allowedOrigins ?? mcpOptions?.allowedOrigins ?? allowedOrigins)
              ? {
                  allowedOrigins: options.api?.allowedOrigins ?? mcpOptions?.allowedOrigins ?? allowedOrigins,
                }
              : {}),
          }),
        );
  const serveConsole = assets && toNodeHandler({ handle: async (request) => assets.handle(request) });
  const http = createServer((req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    if (serveConsole && assets?.owns(pathname)) serveConsole(req, res);
    else if (api.owns(pathname) || !serveMcp) serveApi(req, res);
    else serveMcp(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: mcpOptions ? `${origin}${mcpOptions.endpoint ?? '/mcp'}` : undefined,
    apiUrl: `${origin}${api.basePath}`,
    api,
    port,
    consoleUrl: () => (assets ? `${origin}/console/#token=${api.sessions.mintLoginToken()}` : undefined),
    async close(closing: { graceMs?: number } = {}) {
      api.close();
      await mcp?.close(closing);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
