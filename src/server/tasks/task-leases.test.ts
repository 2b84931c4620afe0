import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryTaskStore } from '../../stores/memory-task-store.js';
import { TaskLeases } from './task-leases.js';

/** A memory store that keeps leases the way a shared one would be asked to: it records each renewal. */
class LeasingStore extends MemoryTaskStore {
  readonly leaseRenewalMs = 100;
  readonly renewals: string[][] = [];
  /** What the next renewal does: its lost ids, or a failure. */
  next: () => Promise<string[]> = () => Promise.resolve([]);

  renewLeases(taskIds: readonly string[]): Promise<string[]> {
    this.renewals.push([...taskIds]);
    return this.next();
  }
}

function leases(running: string[], store = new LeasingStore()) {
  const lost: string[] = [];
  const errors: Error[] = [];
  const shutdown = new AbortController();
  const subject = new TaskLeases({
    store,
    running: () => [...running],
    lost: (taskId) => lost.push(taskId),
    shutdownSignal: shutdown.signal,
    onError: (error) => errors.push(error),
  });
  return { subject, store, lost, errors, shutdown };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('TaskLeases', () => {
  it('renews every running task on one timer, every leaseRenewalMs, until none runs', async () => {
    const running = ['a', 'b'];
    const { subject, store } = leases(running);
    expect(subject.leased).toBe(true);
    subject.started();
    subject.started();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(store.renewals).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    running.splice(0, 1);
    subject.stopped();
    await vi.advanceTimersByTimeAsync(100);
    expect(store.renewals.at(-1)).toEqual(['b']);
    running.splice(0, 1);
    subject.stopped();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.renewals).toHaveLength(4);
  });

  it('stops the runs of the tasks the store says ended, reports failures, and skips ticks while a renewal waits', async () => {
    const { subject, store, lost, errors } = leases(['a', 'b']);
    store.next = () => Promise.resolve(['b']);
    subject.started();
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toEqual(['b']);
    store.next = () => Promise.reject(new Error('Redis is away'));
    await vi.advanceTimersByTimeAsync(100);
    expect(errors.map((error) => error.message)).toEqual(['Redis is away']);
    let answer = () => {};
    store.next = () => new Promise((resolve) => (answer = () => resolve([])));
    await vi.advanceTimersByTimeAsync(500);
    expect(store.renewals).toHaveLength(3);
    answer();
    await vi.advanceTimersByTimeAsync(100);
    expect(store.renewals).toHaveLength(4);
  });

  it('leases nothing on a store without leases, nor after shutdown', () => {
    const plain = new TaskLeases({
      store: new MemoryTaskStore(),
      running: () => ['a'],
      lost: () => undefined,
      shutdownSignal: new AbortController().signal,
    });
    expect(plain.leased).toBe(false);
    plain.started();
    const { subject, shutdown } = leases(['a']);
    shutdown.abort();
    subject.started();
    expect(vi.getTimerCount()).toBe(0);
  });
});
