import { describe, expect, it } from 'vitest';
import { fakeCall, ok, type FakeCall } from '../../../test/_calls.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { concurrencyLimit } from './concurrency-limit.js';

/** A call whose handler runs until `release()`. */
function held(tool = { name: 'slow', limits: { maxConcurrency: 2 } }) {
  const call: FakeCall = fakeCall({ tool });
  let release!: () => void;
  let started = false;
  const handler = () =>
    new Promise<CallToolResult>((resolve) => {
      started = true;
      release = () => {
        resolve(ok());
        call.finish();
      };
    });
  return {
    call,
    handler,
    get started() {
      return started;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('concurrencyLimit', () => {
  it('runs at most maxConcurrency calls of a tool at once; the next waits for a slot', async () => {
    const mw = concurrencyLimit();
    const calls = [held(), held(), held()];
    const results = calls.map((c) => Promise.resolve(mw(c.call, c.handler)));
    await tick();
    expect(calls.map((c) => c.started)).toEqual([true, true, false]);
    calls[0]!.release();
    await tick();
    expect(calls[2]!.started).toBe(true);
    calls[1]!.release();
    calls[2]!.release();
    await expect(Promise.all(results)).resolves.toHaveLength(3);
  });

  it('refuses at once with -31429 when maxWaitMs is 0', async () => {
    const mw = concurrencyLimit({ maxWaitMs: 0 });
    const first = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    const running = mw(first.call, first.handler);
    await tick();
    const second = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    await expect(mw(second.call, second.handler)).rejects.toMatchObject({
      code: -31429,
      message: 'Too many concurrent calls to tool slow (at most 1 at once)',
      data: { retryAfterMs: 1000, limit: 'concurrency' },
    });
    expect(second.call.decision).toBe('rate_limited');
    first.release();
    await running;
  });

  it('refuses a call that waited maxWaitMs without a slot', async () => {
    const mw = concurrencyLimit({ maxWaitMs: 30 });
    const first = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    const running = mw(first.call, first.handler);
    const second = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    await expect(mw(second.call, second.handler)).rejects.toMatchObject({
      message: 'Too many concurrent calls to tool slow (no slot within 30 ms; at most 1 at once)',
    });
    first.release();
    await running;
  });

  it('keeps the slot until the handler has really finished, even after the chain returned', async () => {
    const mw = concurrencyLimit({ maxWaitMs: 0 });
    const tool = { name: 'hung', limits: { maxConcurrency: 1 } };
    const first = fakeCall({ tool });
    // An inner middleware (a timeout) answers while the handler still runs.
    await mw(first, async () => ok('timed out'));
    const second = fakeCall({ tool });
    await expect(mw(second, async () => ok())).rejects.toMatchObject({ code: -31429 });
    first.finish();
    await tick();
    await expect(mw(fakeCall({ tool }), async () => ok())).resolves.toEqual(ok());
  });

  it('applies perTool to tools without their own cap, and nothing when neither is set', async () => {
    const capped = concurrencyLimit({ perTool: 1, maxWaitMs: 0 });
    const a = fakeCall();
    void capped(a, async () => ok());
    await expect(capped(fakeCall(), async () => ok())).rejects.toMatchObject({ code: -31429 });
    a.finish();
    const open = concurrencyLimit();
    const calls = Array.from({ length: 50 }, () => Promise.resolve(open(fakeCall(), async () => ok())));
    await expect(Promise.all(calls)).resolves.toHaveLength(50);
  });

  it('drops a waiting call whose signal aborts', async () => {
    const mw = concurrencyLimit();
    const first = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    const running = mw(first.call, first.handler);
    const second = held({ name: 'slow', limits: { maxConcurrency: 1 } });
    const waiting = mw(second.call, second.handler);
    second.call.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    first.release();
    await running;
    expect(second.started).toBe(false);
  });
});
