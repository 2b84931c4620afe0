// The gateway's audit trail on a Redis that freezes (SIGSTOP) with an append on its socket: the append
// times out, so the trail logs the failure and hands its sinks the record unnumbered (seq 0); Redis runs
// the append when it thaws, and the record is stored and numbered after all. The log line says it may be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditTrail } from '../src/gateway/audit-trail.js';
import { GatewayEvents } from '../src/gateway/gateway-events.js';
import type { GatewayAuditRecord } from '../src/stores/gateway-records.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const COMMAND_TIMEOUT_MS = 300;

const record = (reason: string): Omit<GatewayAuditRecord, 'seq'> => ({
  time: '2026-01-01T00:00:00.000Z',
  kind: 'call',
  caller: { principal: 'alice' },
  upstream: 'files',
  tool: 'read_file',
  argumentsDigest: 'sha256:aa',
  decision: 'allowed',
  reason,
  decidedBy: 'policy',
});

describe('audit records whose append timed out on a frozen Redis', () => {
  let redis: RedisServerHandle;
  let stores: RedisStores;
  /** Another instance's view of the trail. */
  let reader: RedisStores;

  beforeAll(async () => {
    redis = await startRedis();
    stores = redisStores(redis.url, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
    reader = redisStores(redis.url);
  });

  afterAll(async () => {
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
    await stores?.close();
    await reader?.close();
    await redis?.close();
  });

  it('logs that a record it could not store in time may still be stored, as Redis then stores it', async () => {
    const written: GatewayAuditRecord[] = [];
    const lines: string[] = [];
    const trail = new AuditTrail(
      stores.audit,
      [{ write: (stored) => written.push(stored) }],
      new GatewayEvents(),
      (line) => lines.push(line),
    );
    // A first record: Redis knows the script, so the frozen one's append runs when it thaws.
    trail.record(record('first'));
    await expect.poll(() => written.map(({ seq }) => seq)).toEqual([1]);
    process.kill(redis.pid!, 'SIGSTOP');
    try {
      trail.record(record('late'));
      await expect.poll(() => written.length, { timeout: 10_000 }).toBe(2);
      expect(written[1]).toMatchObject({ seq: 0, reason: 'late' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^audit record not stored in time \(the store may still store it, numbered/);
      expect(lines[0]).toMatch(/Redis audit store: append failed: .*timed out/);
      // The connection holding the append goes; Redis still holds the command it was sent.
      await expect.poll(() => stores.client.status, { timeout: 10_000 }).not.toBe('ready');
    } finally {
      process.kill(redis.pid!, 'SIGCONT');
    }
    await expect
      .poll(async () => (await reader.audit.list()).map(({ seq, reason }) => `${seq} ${reason}`), {
        timeout: 10_000,
      })
      .toEqual(['1 first', '2 late']);
  });
});
