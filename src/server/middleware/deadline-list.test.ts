import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

// Fake timers and a fake performance.now() (the list's default clock): every step below happens at an exact
// time, however busy the machine is.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

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
    await vi.advanceTimersByTimeAsync(20);
    const cAdded = performance.now();
    list.add(c);
    b.cancel();
    expect(list.size).toBe(2);
    await vi.advanceTimersByTimeAsync(19);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a']);
    expect(a.expiredAt! - started).toBe(40);
    await vi.advanceTimersByTimeAsync(19);
    expect(log).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a', 'c']);
    expect(c.expiredAt! - cAdded).toBe(40);
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
    await vi.advanceTimersByTimeAsync(40);
    expect(log).toEqual([]);
    list.add(new Probe('later', log));
    await vi.advanceTimersByTimeAsync(19);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['later']);
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
    await vi.advanceTimersByTimeAsync(15);
    expect(log).toEqual(['round 1']);
    await vi.advanceTimersByTimeAsync(15);
    expect(log).toEqual(['round 1', 'round 2']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['round 1', 'round 2']);
  });
});
