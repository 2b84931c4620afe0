// The TaskStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import type { TaskRecord, TaskStatus, TaskStore } from '../../src/stores/task-store.js';
import type { MakeStores } from './harness.js';

export function describeTaskStoreContract(name: string, make: MakeStores<TaskStore, void>): void {
  describe(`TaskStore contract: ${name}`, () => {
    const record = (now: number, overrides: Partial<TaskRecord> = {}): TaskRecord => ({
      taskId: 't1',
      status: 'working',
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttlMs: 60 * 60_000,
      method: 'tools/call',
      ...overrides,
    });

    it('gives back the record it was given, to every handle, and undefined for an unknown id', async () => {
      const { a, b, clock } = await make();
      const full = record(clock.now(), {
        statusMessage: 'ünïcode "quoted"\n',
        pollIntervalMs: 1000,
        principal: 'alice',
        inputRequests: { q1: { method: 'elicitation/create', params: { message: 'Name?', n: 1.5 } } },
      });
      await a.create(full);
      expect(await b.get('t1')).toEqual(full);
      expect(await a.get('nope')).toBeUndefined();
    });

    it('gives copies: changing a record read from the store does not change the store', async () => {
      const { a, clock } = await make();
      await a.create(record(clock.now()));
      const read = (await a.get('t1'))!;
      read.status = 'failed';
      expect((await a.get('t1'))!.status).toBe('working');
    });

    it('refuses a second task with the same id, even from two handles at once', async () => {
      const { a, b, clock } = await make();
      await a.create(record(clock.now()));
      await expect(b.create(record(clock.now(), { method: 'other' }))).rejects.toThrow(/already exists/);
      expect((await a.get('t1'))!.method).toBe('tools/call');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).create(record(clock.now(), { taskId: 'race' }))),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    });

    it('applies a change, removes the fields set to undefined, and resolves with the record as stored', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record(now));
      const asked = await b.update('t1', {
        status: 'input_required',
        inputRequests: { a: { method: 'roots/list' } },
      });
      expect(asked).toEqual(
        record(now, { status: 'input_required', inputRequests: { a: { method: 'roots/list' } } }),
      );
      const working = await a.update('t1', {
        status: 'working',
        inputRequests: undefined,
        statusMessage: 'on it',
      });
      expect(working).toEqual(record(now, { statusMessage: 'on it' }));
      expect(working).not.toHaveProperty('inputRequests');
      expect(await b.get('t1')).toEqual(working);
      expect(await a.update('nope', { status: 'failed' })).toBeUndefined();
      expect(await a.get('nope')).toBeUndefined();
    });

    for (const terminal of ['completed', 'failed', 'cancelled'] as const satisfies readonly TaskStatus[]) {
      it(`never changes a ${terminal} task`, async () => {
        const { a, b, clock } = await make();
        await a.create(record(clock.now()));
        const ended = await a.update('t1', {
          status: terminal,
          ...(terminal === 'completed' ? { result: { content: [] } } : {}),
          ...(terminal === 'failed' ? { error: { code: -32603, message: 'boom' } } : {}),
        });
        expect(await b.update('t1', { status: 'working', statusMessage: 'again', result: { x: 1 } })).toEqual(
          ended,
        );
        expect(await b.get('t1')).toEqual(ended);
      });
    }

    it('lets one of two racing endings win, whole: a completed task with its result, or a cancelled one without', async () => {
      const { a, b, clock } = await make();
      for (let i = 0; i < 20; i++) {
        const taskId = `race${i}`;
        await a.create(record(clock.now(), { taskId }));
        const [completed, cancelled] = await Promise.all([
          a.update(taskId, { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } }),
          b.update(taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client' }),
        ]);
        const stored = await a.get(taskId);
        expect(completed).toEqual(stored);
        expect(cancelled).toEqual(stored);
        if (stored!.status === 'completed') {
          expect(stored).not.toHaveProperty('statusMessage');
        } else {
          expect(stored).toMatchObject({ status: 'cancelled' });
          expect(stored).not.toHaveProperty('result');
        }
      }
    });

    it('keeps a task for its ttl from createdAt, then forgets it; a null ttl keeps it', async () => {
      const { a, b, clock } = await make();
      const ttlMs = 60_000;
      // Created 57 s ago: 3 s left.
      await a.create(record(clock.now() - 57_000, { ttlMs }));
      await a.create(record(clock.now(), { taskId: 'forever', ttlMs: null }));
      await a.create(record(clock.now() - 2 * ttlMs, { taskId: 'expired', ttlMs }));
      expect(await b.get('t1')).toBeDefined();
      expect(await b.get('expired')).toBeUndefined();
      await clock.after(3000, async () => {
        expect(await b.get('t1')).toBeUndefined();
      });
      expect(await a.update('t1', { status: 'failed' })).toBeUndefined();
      // Its id is free again.
      await a.create(record(clock.now(), { ttlMs }));
      expect(await b.get('forever')).toBeDefined();
    });

    it('deletes for every handle (and deleting an unknown id is no error)', async () => {
      const { a, b, clock } = await make();
      await a.create(record(clock.now()));
      await b.delete('t1');
      await b.delete('nope');
      expect(await a.get('t1')).toBeUndefined();
      expect(await a.update('t1', { status: 'failed' })).toBeUndefined();
    });
  });
}
