// A toolwire server served over HTTP on Redis stores, as the in-process tests of many instances make them,
// and how they all end.
import type { Server } from '../src/server/index.js';
import type { RedisStores } from '../src/stores/redis.js';
import type { HttpServerHandle } from '../src/transports/http/index.js';

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
