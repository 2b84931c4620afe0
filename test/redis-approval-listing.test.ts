// What listing the pending approvals (`GET /api/approvals`, an event stream's snapshot) reads from Redis:
// the approvals as listed, never the large arguments they hold. Four gateway instances at their budget
// hold 4,000 approvals and 256 MiB of arguments; a listing that read them all took seconds (past the
// 2 s command timeout), blocked Redis meanwhile and took hundreds of MB in the gateway. Measured on the
// wire: the bytes Redis sends (`INFO stats`, total_net_output_bytes) for one listing.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import type { PendingApproval } from '../src/stores/gateway-records.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const APPROVALS = 40;
const ARGUMENT_BYTES = 256 * 1024;

describe('listing pending approvals on Redis', () => {
  let redis: RedisServerHandle;
  let stores: RedisStores;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    stores = redisStores(redis.url);
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    admin?.disconnect();
    await stores?.close();
    await redis?.close();
  });

  /** What Redis has sent to its clients so far, in bytes. */
  async function sentBytes(): Promise<number> {
    const stats = await admin.info('stats');
    return Number(/total_net_output_bytes:(\d+)/.exec(stats)![1]);
  }

  it('reads the approvals as listed, not their large arguments', async () => {
    const now = Date.now();
    const text = 'x'.repeat(ARGUMENT_BYTES);
    for (let i = 0; i < APPROVALS; i++) {
      const approval: PendingApproval = {
        id: `a${i}`,
        createdAt: new Date(now + i).toISOString(),
        expiresAt: new Date(now + 600_000).toISOString(),
        caller: { sessionId: `s${i}` },
        upstream: 'files',
        tool: 'write_file',
        exposedName: 'files__write_file',
        arguments: { text },
        argumentsDigest: 'sha256:aa',
        reason: 'the policy asks',
      };
      await stores.approvals.create(approval);
    }
    const before = await sentBytes();
    const listed = await stores.approvals.pending();
    const sent = (await sentBytes()) - before;
    expect(listed).toHaveLength(APPROVALS);
    expect(listed.every((approval) => approval.argumentsOmitted && !approval.arguments)).toBe(true);
    // The listing and one INFO reply: a few hundred bytes per approval, against 10 MiB of arguments.
    expect(sent).toBeLessThan(64 * 1024);
    const one = await stores.approvals.get('a7');
    expect(one?.approval.arguments).toEqual({ text });
  });
});
