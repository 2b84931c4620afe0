// A real Redis for a test file: a throwaway redis-server (scripts/redis.mjs) on a free loopback port, from
// the binary the global setup provisioned (test/redis-global-setup.ts). Without one, the tests fail with the
// setup's one line saying what to install: they are never skipped.
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../scripts/redis.mjs';

export type { RedisServerHandle };

export async function startRedis(): Promise<RedisServerHandle> {
  const provided = inject('redisServer');
  if ('error' in provided) throw new Error(provided.error);
  return startRedisServer(provided.binary);
}

/**
 * The command timeout of stores whose commands must succeed however busy the machine: a test that needs
 * them to time out (Redis frozen) shortens it for that part only ({@link timingOutAfter}).
 */
export const PATIENT_TIMEOUT_MS = 10_000;

type Timeout = 'commandTimeout' | 'socketTimeout' | 'connectTimeout';

/**
 * Runs `run` with the timeouts that `redisStores(url, { commandTimeoutMs: PATIENT_TIMEOUT_MS })` gave `client`
 * (command, socket and connection: those it derived from `commandTimeoutMs`) set to `ms`, then puts them
 * back: ioredis reads them at each command and connection. One left unset by the stores stays unset.
 */
export async function timingOutAfter<T>(client: Redis, ms: number, run: () => Promise<T>): Promise<T> {
  const options = client.options as Partial<Record<Timeout, number>>;
  const keys = (['commandTimeout', 'socketTimeout', 'connectTimeout'] as const).filter(
    (key) => options[key] === PATIENT_TIMEOUT_MS,
  );
  for (const key of keys) options[key] = ms;
  try {
    return await run();
  } finally {
    for (const key of keys) options[key] = PATIENT_TIMEOUT_MS;
  }
}
