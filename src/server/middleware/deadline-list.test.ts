import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { DeadlineEntry, DeadlineList } from './deadline-list.js';

class Probe extends DeadlineEntry {
  expiredAt: number | undefined;
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {
    super();
  }
  expire(now: number): void {
    this.expiredAt = now;
    this.log.push(this.name);
  }
}

describe('DeadlineList', () => {
  it('expires entries in order, once their time is up, and not the cancelled ones', async () => {
    const log: string[] = [];
    const list = new DeadlineList(40);
    const started = performance.now();
    const a = new Probe('a', log);
    const b = new Probe('b', log);
    const c = new Probe('c', log);
    list.add(a);
    list.add(b);
    await sleep(20);
    const cAdded = performance.now();
    list.add(c);
    b.cancel();
    expect(list.size).toBe(2);
    await vi.waitFor(() => expect(log).toHaveLength(2), { timeout: 2000, interval: 5 });
    expect(log).toEqual(['a', 'c']);
    expect(a.expiredAt! - started).toBeGreaterThanOrEqual(39);
    expect(c.expiredAt! - cAdded).toBeGreaterThanOrEqual(39);
    expect(b.expiredAt).toBeUndefined();
    expect(list.size).toBe(0);
  });

  it('serves entries added after it emptied, and after a cancelled head', async () => {
    const log: string[] = [];
    const list = new DeadlineList(20);
    const first = new Probe('first', log);
    list.add(first);
    first.cancel();
    first.cancel(); // twice is harmless
    await sleep(40);
    expect(log).toEqual([]);
    list.add(new Probe('later', log));
    await vi.waitFor(() => expect(log).toEqual(['later']), { timeout: 2000, interval: 5 });
  });

  it('lets an expiring entry watch itself again (moved to the end)', async () => {
    const log: string[] = [];
    const list = new DeadlineList(15);
    let rounds = 0;
    const again = new (class extends DeadlineEntry {
      expire(): void {
        log.push(`round ${++rounds}`);
        if (rounds < 2) list.add(this);
      }
    })();
    list.add(again);
    await vi.waitFor(() => expect(log).toEqual(['round 1', 'round 2']), { timeout: 2000, interval: 5 });
    await sleep(40);
    expect(log).toEqual(['round 1', 'round 2']);
  });
});
