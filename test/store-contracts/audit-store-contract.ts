// The AuditStore contract: what every implementation (memory, Redis) does, tested the same way.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditStore, AuditStoreOptions } from '../../src/stores/audit-store.js';
import type { GatewayAuditRecord } from '../../src/stores/gateway-records.js';
import type { MakeStores } from './harness.js';

export function describeAuditStoreContract(
  name: string,
  make: MakeStores<AuditStore, AuditStoreOptions>,
): void {
  describe(`AuditStore contract: ${name}`, () => {
    const time = new Date().toISOString();
    const record = (n: number): Omit<GatewayAuditRecord, 'seq'> => ({
      time,
      kind: 'call',
      caller: { principal: 'alice' },
      upstream: 'files',
      tool: `tool_${n}`,
      argumentsDigest: 'sha256:aa',
      decision: 'allowed',
      decidedBy: 'policy',
      reason: 'ünï "code"',
      callId: n,
      outcome: 'ok',
      durationMs: 1.25,
    });

    it('numbers records from both handles in one sequence, and lists them to both, oldest first', async () => {
      const { a, b } = await make();
      const first = await a.append(record(1));
      const second = await b.append(record(2));
      expect(first).toEqual({ seq: 1, ...record(1) });
      expect(second.seq).toBe(2);
      expect(await b.list()).toEqual([first, second]);
      expect(await a.list({ after: 1 })).toEqual([second]);
      expect(await a.list({ limit: 1 })).toEqual([second]);
    });

    it('numbers a record that has a seq already (the gateway numbers its own 0) as any other', async () => {
      const { a, b } = await make();
      await a.append(record(1));
      const numbered: GatewayAuditRecord = { seq: 0, ...record(2) };
      const stored = await b.append(numbered);
      expect(stored).toEqual({ seq: 2, ...record(2) });
      expect(numbered.seq).toBe(0);
      expect(await a.list()).toEqual([
        { seq: 1, ...record(1) },
        { seq: 2, ...record(2) },
      ]);
    });

    it('keeps its own copy: changing what was appended, returned or listed changes no stored record', async () => {
      const { a, b } = await make();
      const given = record(1);
      const returned = await a.append(given);
      given.caller.principal = 'mallory';
      returned.caller.principal = 'mallory';
      returned.tool = 'changed';
      const [listed] = await b.list();
      expect(listed).toEqual({ seq: 1, ...record(1) });
      listed!.caller.principal = 'mallory';
      expect(await a.list()).toEqual([{ seq: 1, ...record(1) }]);
    });

    it('numbers a burst from both handles in the order appended, one sequence, none lost', async () => {
      const { a, b } = await make();
      const appended = await Promise.all(
        Array.from({ length: 300 }, (_, n) => (n % 3 === 0 ? b : a).append(record(n))),
      );
      const seqs = appended.map((r) => r.seq);
      expect(new Set(seqs).size).toBe(300);
      expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
      // Each handle numbers its own records in the order they were appended.
      for (const handle of [0, 1]) {
        const own = appended.filter((_, n) => (n % 3 === 0 ? 0 : 1) === handle).map((r) => r.seq);
        expect(own).toEqual([...own].sort((x, y) => x - y));
      }
      const listed = await a.list({ limit: 300 });
      expect(listed.map((r) => r.seq)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
      expect(listed.find((r) => r.seq === appended[7]!.seq)).toEqual(appended[7]);
    });

    it('stores a record given its arguments text, listed with the digest of that text, in sequence', async () => {
      const { a, b } = await make();
      const text = JSON.stringify({ path: '/tmp/ünï', n: 1 });
      await a.append(record(1));
      await a.appendUndigested!({ ...record(2), argumentsDigest: '' }, text);
      await a.append(record(3));
      const expected = { seq: 2, ...record(2), argumentsDigest: sha256(text) };
      const listed = await b.list();
      expect(listed.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(listed[1]).toEqual(expected);
      expect(listed[0]).toEqual({ seq: 1, ...record(1) });
      // Read again, and from the other handle: the same record.
      expect(await a.list({ after: 1, limit: 2 })).toEqual([expected, { seq: 3, ...record(3) }]);
    });

    it('keeps the latest maxRecords of undigested records, each with its own digest', async () => {
      const { a, b } = await make({ maxRecords: 3 });
      // The memory store keeps texts up to 4,096 characters and hashes longer ones at once.
      const text = (n: number) => JSON.stringify({ n, pad: 'x'.repeat(n === 7 ? 5_000 : 10) });
      for (let n = 1; n <= 7; n++) {
        if (n % 3 === 0) await a.append(record(n));
        else await (n % 2 ? a : b).appendUndigested!({ ...record(n), argumentsDigest: '' }, text(n));
      }
      const listed = await b.list();
      expect(listed.map((r) => r.seq)).toEqual([5, 6, 7]);
      expect(listed.map((r) => r.argumentsDigest)).toEqual([sha256(text(5)), 'sha256:aa', sha256(text(7))]);
    });

    it('keeps the latest maxRecords only', async () => {
      const { a, b } = await make({ maxRecords: 3 });
      for (let n = 1; n <= 7; n++) await (n % 2 ? a : b).append(record(n));
      expect((await b.list()).map((r) => r.seq)).toEqual([5, 6, 7]);
      expect((await b.list({ limit: 10, after: 5 })).map((r) => r.seq)).toEqual([6, 7]);
    });

    it('lists no record older than ttlMs', async () => {
      const { a, b, clock } = await make({ ttlMs: 500 });
      await a.append(record(1));
      await clock.after(700, async () => {
        expect(await b.list()).toEqual([]);
      });
      const next = await b.append(record(2));
      expect(await a.list()).toEqual([next]);
    });
  });
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
