// A toolwire server served over HTTP on Redis stores, as the in-process tests of many instances make them,
// and how they all end.
import type { Principal, Server } from '../src/server/index.js';
import type { RedisStores } from '../src/stores/redis.js';
import {
  serveHttp,
  type HttpAuthOptions,
  type HttpServerHandle,
  type ServeHttpOptions,
} from '../src/transports/http/index.js';

export interface RedisInstance {
  url: string;
  stores: RedisStores;
  http: HttpServerHandle;
  server: Server;
}

/** Closes each instance in turn (its HTTP server, its Server, its Redis connections); skips the unmade. */
export async function closeInstances(instances: Iterable<RedisInstance | undefined>): Promise<void> {
  for (const instance of instances) {
    if (!instance) continue;
    await instance.http.close();
    await instance.server.close();
    await instance.stores.close();
  }
}

/** The cluster fixture (test/fixtures/cluster-server.mjs): the server every in-process instance serves. */
export const CLUSTER_FIXTURE = new URL('./fixtures/cluster-server.mjs', import.meta.url).href;

/** Auth where a bearer token is the subject's name (no scopes, no roles), with `extra` settings. */
export function subjectAuth(extra: Partial<HttpAuthOptions> = {}): HttpAuthOptions {
  return {
    verifier: (token: string): Promise<Principal> =>
      Promise.resolve({ subject: token, scopes: [], roles: [] }),
    resource: 'http://127.0.0.1/mcp',
    authorizationServers: ['http://127.0.0.1'],
    ...extra,
  };
}

/**
 * The cluster fixture's server (after `setup`, e.g. a tool of the test's own) served over HTTP on a free
 * port with `stores` as its `redis` and the `http` options.
 */
export async function startRedisInstance(
  stores: RedisStores,
  http: Omit<ServeHttpOptions, 'port' | 'redis'>,
  setup?: (server: Server) => void,
): Promise<RedisInstance> {
  const mod = (await import(CLUSTER_FIXTURE)) as { default: () => Server };
  const server = mod.default();
  setup?.(server);
  const handle = await serveHttp(server, { port: 0, redis: stores, ...http });
  return { url: handle.url, stores, http: handle, server };
}
