// The SessionStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../../src/stores/session-store.js';
import type { MakeStores } from './harness.js';

export function describeSessionStoreContract(name: string, make: MakeStores<SessionStore, void>): void {
  describe(`SessionStore contract: ${name}`, () => {
    const record = (id: string, lastSeenAt: number, extra: Partial<SessionRecord> = {}): SessionRecord => ({
      id,
      createdAt: lastSeenAt - 1000,
      lastSeenAt,
      ...extra,
    });

    it('gives back the record it was given, to every handle, and undefined for an unknown id', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const full = record('s1', now, { protocolVersion: '2025-11-25', principal: 'alice ✓ "q"' });
      await a.create(full);
      await a.create(record('s2', now));
      expect(await a.get('s1')).toEqual(full);
      expect(await b.get('s1')).toEqual(full);
      expect(await b.get('s2')).toEqual(record('s2', now));
      expect(await a.get('nope')).toBeUndefined();
    });

    it('gives copies: changing a record read from the store does not change the store', async () => {
      const { a, clock } = await make();
      await a.create(record('s1', clock.now(), { principal: 'alice' }));
      const read = (await a.get('s1'))!;
      read.principal = 'mallory';
      expect((await a.get('s1'))!.principal).toBe('alice');
    });

    it('replaces the record of an id created again', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record('s1', now, { principal: 'alice', protocolVersion: '2025-06-18' }));
      await b.create(record('s1', now + 5, { protocolVersion: '2025-11-25' }));
      expect(await a.get('s1')).toEqual(record('s1', now + 5, { protocolVersion: '2025-11-25' }));
      expect(await a.count()).toBe(1);
    });

    it('updates the fields a patch names, keeps the others, and ignores an unknown id', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record('s1', now, { principal: 'alice' }));
      await b.update('s1', { lastSeenAt: now + 10, protocolVersion: '2025-11-25' });
      expect(await a.get('s1')).toEqual(
        record('s1', now, { lastSeenAt: now + 10, protocolVersion: '2025-11-25', principal: 'alice' }),
      );
      await a.update('nope', { lastSeenAt: now });
      expect(await a.get('nope')).toBeUndefined();
      expect(await a.count()).toBe(1);
    });

    it('adds and removes subscriptions one URI at a time, keeping the rest of the record', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      expect(typeof a.updateSubscriptions).toBe('function');
      await a.create(record('s1', now, { principal: 'alice' }));
      await a.updateSubscriptions?.('s1', ['x://1', 'x://2', 'x://3'], []);
      await b.updateSubscriptions?.('s1', ['x://4'], ['x://2', 'x://never']);
      const read = await a.get('s1');
      expect([...(read?.subscriptions ?? [])].sort()).toEqual(['x://1', 'x://3', 'x://4']);
      expect(read).toMatchObject({ principal: 'alice', lastSeenAt: now });
      await b.updateSubscriptions?.('s1', [], ['x://1', 'x://3', 'x://4']);
      expect(await a.get('s1')).toEqual(record('s1', now, { principal: 'alice' }));
      await a.updateSubscriptions?.('nope', ['x://1'], []);
      expect(await a.get('nope')).toBeUndefined();
      // Deleting the record deletes its subscriptions.
      await a.updateSubscriptions?.('s1', ['x://5'], []);
      await b.delete('s1');
      await a.create(record('s1', now));
      expect(await b.get('s1')).toEqual(record('s1', now));
    });

    it('lists the sessions last seen before a time (strictly), as updates move them', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record('old', now - 5000));
      await a.create(record('edge', now - 2000));
      await a.create(record('new', now));
      expect((await b.idleSince(now - 2000)).sort()).toEqual(['old']);
      expect((await b.idleSince(now + 1)).sort()).toEqual(['edge', 'new', 'old']);
      await a.update('old', { lastSeenAt: now });
      expect(await b.idleSince(now - 2000)).toEqual([]);
      expect(await b.idleSince(now - 1999)).toEqual(['edge']);
    });

    it('deletes for every handle (and deleting an unknown id is no error)', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record('s1', now - 5000));
      await a.create(record('s2', now));
      expect(await b.count()).toBe(2);
      await b.delete('s1');
      await b.delete('nope');
      expect(await a.get('s1')).toBeUndefined();
      expect(await a.idleSince(now + 1)).toEqual(['s2']);
      expect(await a.count()).toBe(1);
      await a.update('s1', { lastSeenAt: now });
      expect(await a.get('s1')).toBeUndefined();
    });

    it('keeps every one of many sessions created at once from two handles', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const ids = Array.from({ length: 100 }, (_, i) => `c${i}`);
      await Promise.all(ids.map(async (id, i) => (i % 2 ? a : b).create(record(id, now))));
      expect(await a.count()).toBe(100);
      expect((await b.idleSince(now + 1)).sort()).toEqual([...ids].sort());
      await Promise.all(ids.map(async (id, i) => (i % 2 ? b : a).delete(id)));
      expect(await b.count()).toBe(0);
    });
  });
}
