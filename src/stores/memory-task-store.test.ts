import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from './memory-task-store.js';
import type { TaskRecord } from './task-store.js';

const T0 = Date.parse('2026-07-28T10:00:00.000Z');

const record = (overrides: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId: 't1',
  status: 'working',
  createdAt: new Date(T0).toISOString(),
  lastUpdatedAt: new Date(T0).toISOString(),
  ttlMs: 1000,
  method: 'tools/call',
  ...overrides,
});

describe('MemoryTaskStore', () => {
  it('returns copies: changing a record read from the store does not change the store', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    const read = (await store.get('t1'))!;
    read.status = 'failed';
    expect((await store.get('t1'))!.status).toBe('working');
  });

  it('applies changes, removes fields set to undefined, and refuses a second task with the same id', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    await expect(store.create(record())).rejects.toThrow(/already exists/);
    await store.update('t1', { status: 'input_required', inputRequests: { a: { method: 'roots/list' } } });
    expect(await store.update('t1', { status: 'working', inputRequests: undefined })).not.toHaveProperty(
      'inputRequests',
    );
    expect(await store.update('nope', { status: 'failed' })).toBeUndefined();
  });

  it('never changes a terminal task', async () => {
    const store = new MemoryTaskStore({ now: () => T0 });
    await store.create(record());
    await store.update('t1', { status: 'cancelled' });
    const after = await store.update('t1', { status: 'completed', result: { content: [] } });
    expect(after).toMatchObject({ status: 'cancelled' });
    expect(after).not.toHaveProperty('result');
  });

  it('keeps a task for its ttl from createdAt, then forgets it; a null ttl keeps it', async () => {
    let now = T0;
    const store = new MemoryTaskStore({ now: () => now });
    await store.create(record());
    await store.create(record({ taskId: 'forever', ttlMs: null }));
    now = T0 + 999;
    expect(await store.get('t1')).toBeDefined();
    now = T0 + 1000;
    expect(await store.get('t1')).toBeUndefined();
    expect(await store.update('t1', { status: 'failed' })).toBeUndefined();
    now = T0 + 10_000_000;
    expect(await store.get('forever')).toBeDefined();
  });

  it('sweeps expired tasks when new ones are created', async () => {
    let now = T0;
    const store = new MemoryTaskStore({ now: () => now });
    await store.create(record({ taskId: 'a' }));
    await store.create(record({ taskId: 'b' }));
    now = T0 + 5000;
    await store.create(record({ taskId: 'c', createdAt: new Date(now).toISOString() }));
    expect(store.size).toBe(1);
    await store.delete('c');
    expect(store.size).toBe(0);
  });
});
