// A gateway served in this process (`createGateway` + `serveGateway`) in front of one toolwire server served
// over HTTP (`serveHttp`), with a model client on its MCP endpoint: the set-up the gateway's HTTP tests share.
import { Client } from '../src/client/index.js';
import {
  createGateway,
  serveGateway,
  type Gateway,
  type GatewayConfig,
  type GatewayHttpHandle,
  type GatewayOptions,
  type HttpUpstreamConfig,
  type ServeGatewayOptions,
} from '../src/gateway/index.js';
import type { Server } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';

export interface ServedGateway {
  readonly upstream: HttpServerHandle;
  readonly gateway: Gateway;
  readonly served: GatewayHttpHandle;
  /** A client named `model` connected to the gateway's MCP endpoint, when `model` was asked for. */
  readonly model: Client;
  /** Closes the model client, the served gateway, the gateway and the upstream, in that order. */
  close(): Promise<void>;
}

export interface ServedGatewayOptions {
  /** The upstream's name in the gateway's configuration; `files` unless given. */
  readonly name?: string;
  /** The upstream's configuration beside its `url`. */
  readonly upstream?: Omit<HttpUpstreamConfig, 'url'>;
  /** The rest of the gateway's configuration (policy …). */
  readonly config?: Omit<GatewayConfig, 'upstreams'>;
  /** The gateway's options; its log is dropped unless `onLog` is given. */
  readonly options?: GatewayOptions;
  /** `serveGateway`'s options; a free port and no console unless given. */
  readonly serve?: ServeGatewayOptions;
  /** Connect a model client (the default), or leave `model` unusable. */
  readonly model?: boolean;
}

/** Serves `server` over HTTP, a gateway in front of it, and (unless `model: false`) a model client on it. */
export async function serveGatewayFor(
  server: Server,
  options: ServedGatewayOptions = {},
): Promise<ServedGateway> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch(() => undefined);
  };
  try {
    const upstream = await serveHttp(server, { port: 0 });
    closers.push(() => upstream.close());
    const config: GatewayConfig = {
      ...options.config,
      upstreams: { [options.name ?? 'files']: { ...options.upstream, url: upstream.url } },
    };
    const gateway = createGateway(config, { onLog: () => undefined, ...options.options });
    closers.push(() => gateway.close());
    await gateway.start();
    const served = await serveGateway(gateway, options.serve ?? { port: 0, console: false });
    closers.push(() => served.close());
    const model = new Client({ name: 'model', version: '1.0.0' });
    if (options.model !== false) {
      await model.connect(new StreamableHttpClientTransport({ url: served.url! }));
      closers.push(() => model.close());
    }
    return { upstream, gateway, served, model, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A gateway of `config` (its log dropped) started and served in this process, on a free port without the
 * console unless `serve` says otherwise; `cleanup` gets how to close each, the served gateway last (a test
 * file runs its steps in reverse).
 */
export async function servedGateway(
  config: GatewayConfig,
  cleanup: (() => Promise<unknown>)[],
  serve: Partial<ServeGatewayOptions> = {},
): Promise<{ gateway: Gateway; served: GatewayHttpHandle }> {
  const gateway = await startedGateway(config, cleanup);
  const served = await serveGateway(gateway, { port: 0, console: false, ...serve });
  cleanup.push(() => served.close());
  return { gateway, served };
}

/** A gateway of `config` (its log dropped), started in this process; `cleanup` gets how to close it. */
export async function startedGateway(
  config: GatewayConfig,
  cleanup: (() => Promise<unknown>)[],
): Promise<Gateway> {
  const gateway = createGateway(config, { onLog: () => undefined });
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}
