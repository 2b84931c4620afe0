// The MessageBus contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import type { MessageBus } from '../../src/stores/message-bus.js';
import type { MakeStores } from './harness.js';

export function describeMessageBusContract(name: string, make: MakeStores<MessageBus, void>): void {
  describe(`MessageBus contract: ${name}`, () => {
    it('delivers every message to every subscriber of every handle, in order, the sender included', async () => {
      const { a, b } = await make();
      const onA: unknown[] = [];
      const onB: unknown[] = [];
      await a.subscribe({ message: (message) => onA.push(message) });
      await b.subscribe({ message: (message) => onB.push(message) });
      const sent = [{ n: 1, text: 'ünï "code"' }, { n: 2, nested: { list: [1, null] } }, { n: 3 }];
      for (const message of sent) await a.publish(message);
      await expect.poll(() => onB).toEqual(sent);
      await expect.poll(() => onA).toEqual(sent);
    });

    it('stops delivering to a subscriber that unsubscribed', async () => {
      const { a, b } = await make();
      const stopped: unknown[] = [];
      const kept: unknown[] = [];
      const stop = await b.subscribe({ message: (message) => stopped.push(message) });
      await b.subscribe({ message: (message) => kept.push(message) });
      stop();
      await a.publish({ n: 1 });
      await expect.poll(() => kept).toEqual([{ n: 1 }]);
      expect(stopped).toEqual([]);
    });

    it('keeps a subscriber’s own messages (those whose `from` is its `from`) from it, and only those', async () => {
      const { a, b } = await make();
      const mine: unknown[] = [];
      const all: unknown[] = [];
      await a.subscribe({ from: 'me', message: (message) => mine.push(message) });
      await b.subscribe({ message: (message) => all.push(message) });
      const sent = [
        { from: 'me', n: 1 },
        { from: 'other', n: 2 },
        { n: 3, from: 'me' }, // `from` not first: kept from it all the same
        { from: 'me2', n: 4 },
        { from: 'me', cancel: { id: 5 } },
        { n: 6 },
      ];
      for (const message of sent) await a.publish(message);
      await expect.poll(() => all).toEqual(sent);
      await expect
        .poll(() => mine.filter((m) => (m as { n?: number }).n !== 3))
        .toEqual([{ from: 'other', n: 2 }, { from: 'me2', n: 4 }, { n: 6 }]);
    });

    it('gives each caller of instanceNumber a different number', async () => {
      const { a, b } = await make();
      const numbers = await Promise.all([a.instanceNumber(), b.instanceNumber(), a.instanceNumber()]);
      expect(new Set(numbers).size).toBe(3);
      for (const n of numbers) expect(n).toBeGreaterThan(0);
    });
  });
}
