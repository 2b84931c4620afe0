// The EventStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/stores/event-store.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import type { MakeStores } from './harness.js';

export interface EventStoreContractOptions {
  maxEventsPerStream?: number;
  maxStreams?: number;
}

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: { n, text: `ünïcode "${n}" \n` } },
});

/** `id` with its last number replaced: the next id of its stream, or one far past it. */
const bump = (id: string, by: 'next' | 'far') =>
  id.replace(/(\d+)$/, (digits) => (by === 'next' ? String(BigInt(digits) + 1n) : '99999999999999999999'));

export function describeEventStoreContract(
  name: string,
  make: MakeStores<EventStore, EventStoreContractOptions>,
): void {
  describe(`EventStore contract: ${name}`, () => {
    it('replays what followed an event, in order, from any handle; priming events have ids but never replay', async () => {
      const { a, b } = await make();
      const prime = await a.append('s1', null);
      const ids = [
        await a.append('s1', note(1)),
        await a.append('s1', note(2)),
        await a.append('s1', note(3)),
      ];
      expect(prime.startsWith('s1.')).toBe(true);
      for (const id of ids) expect(id.startsWith('s1.')).toBe(true);
      expect(new Set([prime, ...ids]).size).toBe(4);
      expect(await b.replayAfter(prime)).toEqual({
        streamId: 's1',
        events: ids.map((id, i) => ({ id, message: note(i + 1) })),
      });
      expect(await b.replayAfter(ids[1]!)).toEqual({
        streamId: 's1',
        events: [{ id: ids[2], message: note(3) }],
      });
      expect(await a.replayAfter(ids[2]!)).toEqual({ streamId: 's1', events: [] });
    });

    it('replays a message appended with its text as that text says, beside messages appended without', async () => {
      const { a, b } = await make();
      const prime = await a.append('s1', null);
      const ids = [
        await a.append('s1', note(1), JSON.stringify(note(1))),
        await a.append('s1', note(2)),
        await a.append('s1', note(3), JSON.stringify(note(3))),
      ];
      expect(await b.replayAfter(prime)).toEqual({
        streamId: 's1',
        events: ids.map((id, i) => ({ id, message: note(i + 1) })),
      });
    });

    it('keeps streams apart', async () => {
      const { a } = await make();
      const first = await a.append('s1', null);
      await a.append('s2', note(20));
      const one = await a.append('s1', note(1));
      expect(await a.replayAfter(first)).toEqual({ streamId: 's1', events: [{ id: one, message: note(1) }] });
    });

    it('knows no id it never issued: unknown streams, ids past the last, malformed ids', async () => {
      const { a } = await make();
      const id = await a.append('s1', note(1));
      for (const unknown of [
        bump(id, 'next'),
        bump(id, 'far'),
        `other.${id.slice(3)}`,
        'no-dot',
        `.${id.slice(3)}`,
        's1.',
        's1.abc',
        's1.-1',
        '',
      ]) {
        expect(await a.replayAfter(unknown), unknown).toBeUndefined();
      }
    });

    it('forgets a deleted stream, for every handle', async () => {
      const { a, b } = await make();
      const id = await a.append('s1', null);
      await a.append('s1', note(1));
      await b.deleteStream('s1');
      await b.deleteStream('never');
      expect(await a.replayAfter(id)).toBeUndefined();
      // The stream id can be used again, from scratch.
      const again = await a.append('s1', null);
      expect(await a.replayAfter(again)).toEqual({ streamId: 's1', events: [] });
    });

    it('keeps the last maxEventsPerStream events of a stream', async () => {
      const { a } = await make({ maxEventsPerStream: 3 });
      const ids: string[] = [];
      for (let n = 1; n <= 6; n++) ids.push(await a.append('s1', note(n)));
      const other = await a.append('s2', note(100));
      expect(await a.replayAfter(ids[0]!)).toEqual({
        streamId: 's1',
        events: [4, 5, 6].map((n) => ({ id: ids[n - 1], message: note(n) })),
      });
      expect(await a.replayAfter(ids[4]!)).toEqual({
        streamId: 's1',
        events: [{ id: ids[5], message: note(6) }],
      });
      expect(await a.replayAfter(other)).toEqual({ streamId: 's2', events: [] });
    });

    it('keeps the maxStreams streams written last: the least recently written goes, for every handle', async () => {
      const { a, b } = await make({ maxStreams: 3 });
      const first: Record<string, string> = {};
      for (const stream of ['s1', 's2', 's3']) first[stream] = await a.append(stream, note(1));
      // Written again: s1 is no longer the least recently written.
      await a.append('s1', note(2));
      await b.append('s4', note(1));
      await a.append('s5', note(1));
      expect(await b.replayAfter(first.s2!)).toBeUndefined();
      expect(await b.replayAfter(first.s3!)).toBeUndefined();
      expect(await b.replayAfter(first.s1!)).toEqual({ streamId: 's1', events: [expect.anything()] });
      // A deleted stream leaves its place to another.
      await b.deleteStream('s4');
      const s6 = await a.append('s6', note(1));
      expect(await b.replayAfter(first.s1!)).toMatchObject({ streamId: 's1' });
      expect(await a.replayAfter(s6)).toEqual({ streamId: 's6', events: [] });
    });

    it('gives every one of many appends at once, from two handles, its own id, replayed in id order', async () => {
      const { a, b } = await make();
      const prime = await a.append('s1', null);
      const ids = await Promise.all(
        Array.from({ length: 60 }, async (_, n) => (n % 2 ? a : b).append('s1', note(n))),
      );
      expect(new Set(ids).size).toBe(60);
      const replay = await a.replayAfter(prime);
      expect(replay?.events).toHaveLength(60);
      // Each event comes back under the id its append returned.
      const byId = new Map(replay!.events.map((event) => [event.id, event.message]));
      ids.forEach((id, n) => expect(byId.get(id)).toEqual(note(n)));
      // In the order of their ids: replaying after any one gives exactly those after it.
      const middle = replay!.events[29]!.id;
      expect((await b.replayAfter(middle))?.events).toEqual(replay!.events.slice(30));
    });
  });
}
