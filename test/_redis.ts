// A real Redis for a test file: a throwaway redis-server (scripts/redis.mjs) on a free loopback port, from
// the binary the global setup provisioned (test/redis-global-setup.ts). Without one, the tests fail with the
// setup's one line saying what to install: they are never skipped.
import { inject } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../scripts/redis.mjs';

export type { RedisServerHandle };

export async function startRedis(): Promise<RedisServerHandle> {
  const provided = inject('redisServer');
  if ('error' in provided) throw new Error(provided.error);
  return startRedisServer(provided.binary);
}
