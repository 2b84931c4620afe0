/**
 * One operation of a Redis store: whatever it throws becomes a `StoreError` naming the store, the
 * operation and, when the connection is down, where Redis was expected and what the connection is
 * doing (`reconnecting`, `connecting`, `end`).
 * @module
 */
import type { Redis } from 'ioredis';
import { storeOperation } from './store-error.js';

export function redisOperation<T>(
  client: Redis,
  store: string,
  operation: string,
  run: () => Promise<T>,
): Promise<T> {
  return storeOperation(store, operation, run, () => {
    if (client.status === 'ready') return undefined;
    const { host, port, path } = client.options;
    return `Redis at ${path || `${host ?? 'localhost'}:${port ?? 6379}`} is not connected (${client.status})`;
  });
}
