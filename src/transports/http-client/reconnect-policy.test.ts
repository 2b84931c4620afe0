import { describe, expect, it } from 'vitest';
import { ReconnectPolicy, wait } from './reconnect-policy.js';

describe('ReconnectPolicy', () => {
  it('waits exactly the server retry before the first attempt', () => {
    expect(new ReconnectPolicy().delay(0, 500)).toBe(500);
    expect(new ReconnectPolicy({ initialDelayMs: 250 }).delay(0, undefined)).toBe(250);
  });

  it('backs off exponentially on failures, up to the cap but never below the server retry', () => {
    const policy = new ReconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5].map((failures) => policy.delay(failures, undefined))).toEqual([
      200, 400, 800, 1000, 1000,
    ]);
    expect(policy.delay(3, 5000)).toBe(5000);
  });

  it('keeps the server retry between 100 ms and 10 min', () => {
    const policy = new ReconnectPolicy();
    expect(policy.delay(0, 0)).toBe(100);
    expect(policy.delay(0, 99_999_999_999)).toBe(600_000);
    expect(policy.delay(2, 0)).toBe(400);
  });

  it('respects a server retry under 100 ms after a stream that brought a message, not after failures', () => {
    const policy = new ReconnectPolicy();
    expect(policy.delay(0, 0, true)).toBe(0);
    expect(policy.delay(0, 20, true)).toBe(20);
    expect(policy.delay(0, 99_999_999_999, true)).toBe(600_000);
    expect(policy.delay(1, 20, true)).toBe(200);
  });

  it('defaults to 1 s, a 30 s cap and 5 retries', () => {
    const policy = new ReconnectPolicy();
    expect(policy.delay(0, undefined)).toBe(1000);
    expect(policy.delay(10, undefined)).toBe(30_000);
    expect(policy.maxRetries).toBe(5);
  });
});

describe('wait', () => {
  it('resolves false as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = wait(10_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('resolves true after the delay', async () => {
    expect(await wait(5, new AbortController().signal)).toBe(true);
  });
});
