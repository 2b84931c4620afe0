// The connection `redisStores(url)` opens, when Redis stops answering but keeps the socket open (frozen:
// SIGSTOP, DEBUG SLEEP; here CLIENT PAUSE WRITE, which holds the writes it has read until it ends). A command
// that timed out was given up on: the connection is dropped and made again, so what timed out is neither kept
// in memory for as long as Redis is frozen nor run once Redis thaws (a write its caller was told failed must
// not land late). Redis pauses for at most PAUSE_MS whatever happens.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError, redisStores, type RedisStores } from '../src/stores/redis.js';
import { PATIENT_TIMEOUT_MS, startRedis, timingOutAfter, type RedisServerHandle } from './_redis.js';

/** While Redis is paused (what succeeds before and after has {@link PATIENT_TIMEOUT_MS}). */
const COMMAND_TIMEOUT_MS = 300;
/** How long Redis holds writes: far past the command timeout, and the test's bound for the connection to go. */
const PAUSE_MS = 20_000;

describe('a Redis connection whose commands time out', () => {
  let redis: RedisServerHandle;
  let stores: RedisStores;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    stores = redisStores(redis.url, { commandTimeoutMs: PATIENT_TIMEOUT_MS });
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    await admin?.call('CLIENT', 'UNPAUSE').catch(() => undefined);
    admin?.disconnect();
    await stores?.close();
    await redis?.close();
  });

  /** The ids of Redis's clients other than `admin`. */
  async function otherClients(): Promise<string[]> {
    const self = String(await admin.call('CLIENT', 'ID'));
    const list = String(await admin.call('CLIENT', 'LIST'));
    return [...list.matchAll(/^id=(\d+) /gm)].map((match) => match[1]!).filter((id) => id !== self);
  }

  it('is dropped while Redis is frozen, and what timed out is not run when Redis thaws', async () => {
    await stores.grants.grant('files', 'before');
    const [frozen] = await otherClients();
    expect(frozen).toBeDefined();
    await timingOutAfter(stores.client, COMMAND_TIMEOUT_MS, async () => {
      await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
      try {
        const failed = await stores.grants.grant('files', 'ghost').catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(StoreError);
        expect((failed as StoreError).message).toMatch(
          /Redis grant store: grant failed: .*Command timed out/,
        );
        // The connection holding the write that timed out goes (long before the pause ends), a new one comes.
        await expect.poll(otherClients, { timeout: PAUSE_MS / 2, interval: 100 }).not.toContain(frozen);
        await expect.poll(() => stores.client.status, { timeout: PAUSE_MS / 2 }).toBe('ready');
      } finally {
        await admin.call('CLIENT', 'UNPAUSE');
      }
    });
    // Read through the stores' own connection: had the write stayed on it, it would have run by now.
    expect(await stores.grants.has('files', 'ghost')).toBe(false);
    expect(await stores.grants.has('files', 'before')).toBe(true);
    await stores.grants.grant('files', 'after');
    expect(await stores.grants.has('files', 'after')).toBe(true);
  });
});
