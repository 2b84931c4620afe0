/**
 * Serves a gateway on node:http: its MCP endpoint (Streamable HTTP and legacy HTTP+SSE, as `serveHttp`
 * does) and its decision API beside it, on one port bound to 127.0.0.1 unless told otherwise. A gateway
 * served over stdio still needs the API, alone (`mcp: false`): someone has to approve.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  StreamableHttpHandler,
  toNodeHandler,
  type StreamableHttpOptions,
} from '../transports/http/index.js';
import { DecisionApi, type DecisionApiOptions } from './decision-api.js';
import type { Gateway } from './gateway.js';

export interface ServeGatewayOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: only this machine can connect. */
  host?: string;
  /** The MCP endpoint's options (`/mcp` by default), or false for the API alone. */
  mcp?: StreamableHttpOptions | false;
  /**
   * The decision API's options (`/api`). Its Host/Origin allow-lists default to the MCP endpoint's, and
   * with `mcp.auth` its verifier also admits principals with the deciding role (`api.role`, `approver`).
   */
  api?: DecisionApiOptions;
}

export interface GatewayHttpHandle {
  /** The MCP endpoint (undefined with `mcp: false`). */
  readonly url: string | undefined;
  /** The decision API, e.g. `http://127.0.0.1:3000/api`. */
  readonly apiUrl: string;
  readonly api: DecisionApi;
  readonly port: number;
  /** Stops listening and ends the API's event streams (the gateway itself stays open). */
  close(): Promise<void>;
}

export async function serveGateway(
  gateway: Gateway,
  options: ServeGatewayOptions = {},
): Promise<GatewayHttpHandle> {
  const mcpOptions = options.mcp === false ? undefined : (options.mcp ?? {});
  const api = new DecisionApi(gateway, {
    ...(mcpOptions?.allowedHosts ? { allowedHosts: mcpOptions.allowedHosts } : {}),
    ...(mcpOptions?.allowedOrigins ? { allowedOrigins: mcpOptions.allowedOrigins } : {}),
    // The MCP endpoint's verifier also admits principals with the deciding role to the API.
    ...(mcpOptions?.auth ? { verifier: mcpOptions.auth.verifier } : {}),
    ...options.api,
  });
  const mcp = mcpOptions ? new StreamableHttpHandler(gateway.server, mcpOptions) : undefined;
  const serveMcp = mcp ? toNodeHandler(mcp) : undefined;
  const serveApi = toNodeHandler({ handle: (request) => api.handle(request) });
  const http = createServer((req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    if (api.owns(query === -1 ? url : url.slice(0, query)) || !serveMcp) serveApi(req, res);
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
    async close() {
      api.close();
      await mcp?.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
