import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalErrorCode } from '../errors.js';
import { OutgoingRequests } from './outgoing-requests.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The outcome of a tracked request so far: pending, its result, or its error's code. */
function watch(promise: Promise<unknown>): { state: unknown } {
  const seen: { state: unknown } = { state: 'pending' };
  promise.then(
    (result) => (seen.state = result),
    (error: { code?: unknown }) => (seen.state = error.code),
  );
  return seen;
}

describe('OutgoingRequests timeouts (one timer for all)', () => {
  it('times each request out at its own deadline, whatever order they came in', async () => {
    const cancelled: unknown[] = [];
    const requests = new OutgoingRequests((id, reason) => cancelled.push([id, reason]));
    const slow = watch(requests.track(1, 'tools/call', 100, {}));
    const fast = watch(requests.track(2, 'tools/call', 50, {}));
    const never = watch(requests.track(3, 'tools/call', Infinity, {}));
    await vi.advanceTimersByTimeAsync(49);
    expect([slow.state, fast.state]).toEqual(['pending', 'pending']);
    await vi.advanceTimersByTimeAsync(1);
    expect([slow.state, fast.state]).toEqual(['pending', LocalErrorCode.RequestTimeout]);
    await vi.advanceTimersByTimeAsync(50);
    expect(slow.state).toBe(LocalErrorCode.RequestTimeout);
    expect(cancelled).toEqual([
      [2, 'Request timed out'],
      [1, 'Request timed out'],
    ]);
    expect(requests.settle({ jsonrpc: '2.0', id: 3, result: { ok: true } })).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(never.state).toEqual({ ok: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer once nothing is pending, and a settled request times nothing out', async () => {
    const requests = new OutgoingRequests(() => undefined);
    const first = watch(requests.track(1, 'tools/call', 100, {}));
    const second = watch(requests.track(2, 'tools/call', 200, {}));
    requests.settle({ jsonrpc: '2.0', id: 1, result: {} });
    await vi.advanceTimersByTimeAsync(150);
    expect([first.state, second.state]).toEqual([{}, 'pending']);
    await vi.advanceTimersByTimeAsync(50);
    expect(second.state).toBe(LocalErrorCode.RequestTimeout);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('pushes a deadline back on progress (resetTimeoutOnProgress), and forward for a shorter one', async () => {
    const requests = new OutgoingRequests(() => undefined);
    const reset = watch(
      requests.track(1, 'tools/call', 100, { resetTimeoutOnProgress: true, onProgress: () => undefined }),
    );
    await vi.advanceTimersByTimeAsync(80);
    requests.progress({ progressToken: 1, progress: 1 });
    const short = watch(requests.track(2, 'tools/call', 10, {}));
    await vi.advanceTimersByTimeAsync(10);
    expect([reset.state, short.state]).toEqual(['pending', LocalErrorCode.RequestTimeout]);
    await vi.advanceTimersByTimeAsync(89);
    expect(reset.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(reset.state).toBe(LocalErrorCode.RequestTimeout);
  });
});

describe('OutgoingRequests timer between requests', () => {
  it('keeps its timer once nothing is pending, holding the process no more, and the next request uses it again', async () => {
    const set = vi.spyOn(globalThis, 'setTimeout');
    const requests = new OutgoingRequests(() => undefined);
    const first = watch(requests.track(1, 'tools/call', 100, {}));
    expect(set).toHaveBeenCalledTimes(1);
    const timer = set.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(true);
    requests.settle({ jsonrpc: '2.0', id: 1, result: {} });
    expect(timer.hasRef()).toBe(false); // nothing pending: it keeps no process alive
    // A later deadline: the same timer, held again (no clear and set per request).
    const second = watch(requests.track(2, 'tools/call', 200, {}));
    expect(set).toHaveBeenCalledTimes(1);
    expect(timer.hasRef()).toBe(true);
    await vi.advanceTimersByTimeAsync(100); // the first deadline passes: the second is not due
    expect([first.state, second.state]).toEqual([{}, 'pending']);
    await vi.advanceTimersByTimeAsync(100);
    expect(second.state).toBe(LocalErrorCode.RequestTimeout);
    expect(vi.getTimerCount()).toBe(0);
    set.mockRestore();
  });
});
