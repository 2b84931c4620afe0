import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeCall, ok } from '../../../test/_calls.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { timeout } from './timeout.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<CallToolResult>(() => {});

/** The promise, and whether it has settled yet. */
function watch<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

// Fake timers and a fake performance.now() (the middleware's clock): every step below happens at an exact
// time, however busy the machine is.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('timeout', () => {
  it("aborts the handler's signal and answers isError saying so", async () => {
    const mw = timeout({ defaultMs: 40 });
    const call = fakeCall();
    const pending = watch(mw(call, never));
    await vi.advanceTimersByTimeAsync(39);
    expect(pending.settled()).toBe(false);
    expect(call.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(pending.settled()).toBe(true);
    expect(await pending.promise).toEqual({
      content: [{ type: 'text', text: 'Tool echo timed out after 40 ms' }],
      isError: true,
    });
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(call.decision).toBe('timed_out');
  });

  it("prefers the tool's own timeout, and 0 means none", async () => {
    const mw = timeout({ defaultMs: 10_000 });
    const quick = watch(mw(fakeCall({ tool: { limits: { timeout: 20 } } }), never));
    await vi.advanceTimersByTimeAsync(20);
    expect(quick.settled()).toBe(true);
    expect((await quick.promise).isError).toBe(true);
    const unlimited = fakeCall({ tool: { limits: { timeout: 0 } } });
    const slow = mw(unlimited, async () => (await sleep(30_000), ok()));
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(slow).resolves.toEqual(ok());
  });

  it('gives tools declared for tasks no default timeout', async () => {
    const mw = timeout({ defaultMs: 10 });
    const call = fakeCall({ tool: { task: true } });
    const slow = mw(call, async () => (await sleep(30), ok()));
    await vi.advanceTimersByTimeAsync(30);
    await expect(slow).resolves.toEqual(ok());
  });

  it('passes a result or an error through when the handler is in time', async () => {
    const mw = timeout({ defaultMs: 1000 });
    await expect(mw(fakeCall(), async () => ok('fine'))).resolves.toEqual(ok('fine'));
    await expect(
      mw(fakeCall(), async () => {
        throw new Error('bad');
      }),
    ).rejects.toThrow('bad');
  });

  it('drops a late result', async () => {
    const mw = timeout({ defaultMs: 10 });
    const late = mw(fakeCall(), async () => (await sleep(300), ok('late')));
    await vi.advanceTimersByTimeAsync(300);
    expect((await late).isError).toBe(true);
  });

  it('does not count the time the handler waits for the client', async () => {
    // 170 ms in all, 120 of them waiting for input: 50 ms of its own, under the 60 ms timeout.
    const mw = timeout({ defaultMs: 60 });
    const call = fakeCall();
    const answered = mw(call, async () => {
      const answer = call.waitForInput();
      await sleep(120); // a person answering a form
      answer();
      await sleep(50);
      return ok('answered');
    });
    await vi.advanceTimersByTimeAsync(170);
    expect(await answered).toEqual(ok('answered'));
  });
});
