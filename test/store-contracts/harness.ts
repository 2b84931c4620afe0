// What a store contract is run with: two handles on the same data (for Redis, two connections, as two
// processes would hold; in memory, the one store) and the clock the store's expiry follows.
import { vi } from 'vitest';

export interface ContractClock {
  /** The time the store reads, in ms since the epoch. */
  now: () => number;
  /**
   * Runs `check` once `ms` have passed: a fake clock is moved on by `ms` and `check` runs once; on the
   * real clock `check` is retried until it passes (expect.poll's timeout), never a fixed sleep.
   */
  after(ms: number, check: () => Promise<void>): Promise<void>;
}

export interface StorePair<S> {
  a: S;
  /** Another handle on `a`'s data: what a second process sees. */
  b: S;
  clock: ContractClock;
}

export type MakeStores<S, O> = (options?: O) => Promise<StorePair<S>> | StorePair<S>;

/** A fake clock for the memory stores' `now` option. */
export function fakeClock(start = Date.parse('2026-07-28T10:00:00.000Z')): ContractClock {
  let now = start;
  return {
    now: () => now,
    async after(ms, check) {
      now += ms;
      await check();
    },
  };
}

/** The real clock, for stores whose expiry is the server's (Redis). */
export const realClock: ContractClock = {
  now: () => Date.now(),
  async after(_ms, check) {
    // Retried until it passes (the last failure is thrown after 10 s): no sleep to guess the length of.
    await vi.waitFor(check, { timeout: 10_000, interval: 25 });
  },
};
