// The TaskStore contract: what every implementation (memory, Redis) does, tested the same way.
import { describe, expect, it } from 'vitest';
import {
  InvalidTaskCursor,
  TaskLimitReached,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../../src/stores/task-store.js';
import type { MakeStores } from './harness.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** What the contract makes a store with: the lease of leased tasks, for a store that has leases. */
export interface TaskStoreContractOptions {
  leaseMs?: number;
}

/** `leases`: the store renews leases (`renewLeases`), and leased tasks fail when their lease runs out. */
export function describeTaskStoreContract(
  name: string,
  make: MakeStores<TaskStore, TaskStoreContractOptions>,
  { leases = false }: { leases?: boolean } = {},
): void {
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

    it('ignores a change that does not end the task when it is older than the last one (a write landing late)', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const at = (ms: number) => new Date(now + ms).toISOString();
      await a.create(record(now));
      const asked = { status: 'input_required' as const, inputRequests: { q1: { method: 'roots/list' } } };
      // The question's write timed out; the run went on, its question answered; then the first write lands.
      const working = await b.update('t1', {
        status: 'working',
        inputRequests: undefined,
        lastUpdatedAt: at(2),
      });
      expect(await a.update('t1', { ...asked, lastUpdatedAt: at(1) })).toEqual(working);
      expect(await b.get('t1')).toEqual(record(now, { lastUpdatedAt: at(2) }));
      // A later one applies; so does an ending, however old (a cancellation made elsewhere).
      expect(await a.update('t1', { ...asked, lastUpdatedAt: at(3) })).toMatchObject(asked);
      expect(await b.update('t1', { status: 'cancelled', lastUpdatedAt: at(0) })).toMatchObject({
        status: 'cancelled',
      });
    });

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

    /** Every record of `owner`, page by page (the ids of each page). */
    async function pages(store: TaskStore, owner: string, limit: number): Promise<string[][]> {
      const out: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list(owner, cursor === undefined ? { limit } : { cursor, limit });
        out.push(page.records.map((r) => r.taskId));
        cursor = page.nextCursor;
      } while (cursor !== undefined && out.length < 20);
      return out;
    }

    it('lists the tasks of one owner, oldest first, page by page, to every handle', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      for (let i = 0; i < 5; i++) {
        await (i % 2 ? a : b).create(record(now - 10 + i, { taskId: `alice-${i}`, owner: 'alice' }));
      }
      await a.create(record(now, { taskId: 'bob-0', owner: 'bob' }));
      await a.create(record(now, { taskId: 'nobody' }));
      expect(await pages(b, 'alice', 2)).toEqual([
        ['alice-0', 'alice-1'],
        ['alice-2', 'alice-3'],
        ['alice-4'],
      ]);
      expect(await pages(a, 'alice', 5)).toEqual([['alice-0', 'alice-1', 'alice-2', 'alice-3', 'alice-4']]);
      expect(await pages(a, 'bob', 10)).toEqual([['bob-0']]);
      expect(await pages(a, 'carol', 10)).toEqual([[]]);
      const [first] = (await a.list('alice', { limit: 1 })).records;
      expect(first).toEqual(await b.get('alice-0'));
    });

    it('leaves expired and deleted tasks out of a listing, and refuses a cursor it did not issue', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      await a.create(record(now - 3, { taskId: 'old', owner: 'alice', ttlMs: 60_000 }));
      await a.create(record(now - 2, { taskId: 'gone', owner: 'alice' }));
      await a.create(record(now - 1, { taskId: 'short', owner: 'alice', ttlMs: 2000 }));
      await a.create(record(now, { taskId: 'kept', owner: 'alice' }));
      await b.delete('gone');
      expect(await pages(b, 'alice', 10)).toEqual([['old', 'short', 'kept']]);
      await clock.after(2000, async () => {
        expect(await pages(b, 'alice', 1)).toEqual([['old'], ['kept']]);
      });
      for (const cursor of ['bogus', '', 'm-1', 'r1']) {
        await expect(a.list('alice', { cursor, limit: 1 })).rejects.toBeInstanceOf(InvalidTaskCursor);
      }
    });

    it('takes only the cursors it issued, each for the owner it issued it to, from every handle', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      for (let i = 0; i < 3; i++) {
        await a.create(record(now - 10 + i, { taskId: `alice-${i}`, owner: 'alice' }));
        await a.create(record(now - 10 + i, { taskId: `bob-${i}`, owner: 'bob' }));
      }
      const { nextCursor } = await a.list('alice', { limit: 1 });
      expect(nextCursor).toBeDefined();
      const cursor = nextCursor!;
      // The cursor pages on, through any handle.
      const second = await b.list('alice', { cursor, limit: 1 });
      expect(second.records.map((r) => r.taskId)).toEqual(['alice-1']);
      const third = await a.list('alice', { cursor: second.nextCursor!, limit: 5 });
      expect(third.records.map((r) => r.taskId)).toEqual(['alice-2']);
      // Not for another owner; not a position it never issued; not a cursor altered in any way.
      await expect(b.list('bob', { cursor, limit: 1 })).rejects.toBeInstanceOf(InvalidTaskCursor);
      const [position, mac] = [
        cursor.slice(0, cursor.lastIndexOf('.')),
        cursor.slice(cursor.lastIndexOf('.')),
      ];
      const forged = [
        'mzz',
        'm1',
        'r000000000000001:x',
        position,
        `${position}0${mac}`,
        `${position}.${mac.startsWith('.A') ? 'B' : 'A'}${mac.slice(2)}`,
        `${cursor}.`,
        // The same MAC spelt otherwise (an unused trailing bit set).
        `${cursor.slice(0, -1)}${B64[B64.indexOf(cursor.at(-1)!) + 1]}`,
      ];
      for (const bad of forged) {
        await expect(a.list('alice', { cursor: bad, limit: 1 })).rejects.toBeInstanceOf(InvalidTaskCursor);
      }
    });

    it('refuses a task past its limit key’s running tasks, from any handle, storing nothing', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const limit = { key: 'principal:alice', max: 2 };
      await a.create(record(now, { taskId: 'x1' }), { limit });
      await b.create(record(now, { taskId: 'x2', owner: 'principal:alice' }), { limit });
      const refused = b.create(record(now, { taskId: 'x3' }), { limit });
      await expect(refused).rejects.toBeInstanceOf(TaskLimitReached);
      await expect(refused).rejects.toMatchObject({ max: 2 });
      await expect(
        a.create(record(now, { taskId: 'x3', owner: 'principal:alice' }), { limit }),
      ).rejects.toThrow(/at most 2/);
      expect(await b.get('x3')).toBeUndefined();
      expect(await pages(a, 'principal:alice', 10)).toEqual([['x2']]);
      // Another key, and tasks created without a limit, count apart; a higher limit lets one more in.
      await a.create(record(now, { taskId: 'y1' }), { limit: { ...limit, key: 'principal:bob' } });
      await a.create(record(now, { taskId: 'free' }));
      await a.create(record(now, { taskId: 'x3' }), { limit: { ...limit, max: 3 } });
      // Racing creations never take more places than there are.
      const race = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).create(record(now, { taskId: `r${i}` }), { limit: { key: 'race', max: 3 } }),
        ),
      );
      expect(race.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    });

    it('frees a place when a task ends (through any handle), is deleted or expires', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const limit = { key: 'session:s1', max: 2 };
      await a.create(record(now, { taskId: 'done' }), { limit });
      await a.create(record(now, { taskId: 'short', ttlMs: 1000 }), { limit });
      await expect(b.create(record(now, { taskId: 'next' }), { limit })).rejects.toThrow(TaskLimitReached);
      // Still running, a task that asks for input keeps its place.
      await b.update('done', { status: 'input_required', inputRequests: { q: { method: 'roots/list' } } });
      await expect(b.create(record(now, { taskId: 'next' }), { limit })).rejects.toThrow(TaskLimitReached);
      await b.update('done', { status: 'completed', result: { content: [] }, inputRequests: undefined });
      await a.create(record(now, { taskId: 'next' }), { limit });
      await expect(b.create(record(now, { taskId: 'then' }), { limit })).rejects.toThrow(TaskLimitReached);
      await b.delete('next');
      await a.create(record(now, { taskId: 'then' }), { limit });
      await expect(b.create(record(now, { taskId: 'last' }), { limit })).rejects.toThrow(TaskLimitReached);
      // 'short' expires: its place goes to the next task created.
      await clock.after(1000, async () => {
        await b.create(record(clock.now(), { taskId: 'last' }), { limit });
      });
      await expect(a.create(record(clock.now(), { taskId: 'more' }), { limit })).rejects.toThrow(
        TaskLimitReached,
      );
    });

    it.runIf(leases)(
      'fails a leased task whose lease ran out, once, on any read; a renewal that comes first keeps it running',
      async () => {
        const leaseMs = 1000;
        const { a, b, clock } = await make({ leaseMs });
        expect(a.leaseRenewalMs).toBeGreaterThan(0);
        expect(a.leaseRenewalMs).toBeLessThan(leaseMs);
        const now = clock.now();
        await a.create(record(now, { taskId: 'late' }), { lease: true });
        await a.create(record(now, { taskId: 'unleased' }));
        await a.create(record(now, { taskId: 'ended' }), { lease: true });
        await a.update('ended', { status: 'completed', result: { content: [] } });
        await a.create(record(now, { taskId: 'listed', owner: 'alice' }), { lease: true });
        // The last one leased: once a read finds it failed, every lease above has run out too.
        await a.create(record(now, { taskId: 'probe' }), { lease: true });
        expect(await b.get('probe')).toMatchObject({ status: 'working' });
        await clock.after(leaseMs, async () => {
          expect(await b.get('probe')).toMatchObject({ status: 'failed' });
        });
        const failed = (await a.get('probe'))!;
        const message = 'The server instance running task probe stopped before it finished';
        expect(failed).toEqual({
          ...record(now, { taskId: 'probe' }),
          status: 'failed',
          statusMessage: message,
          error: { code: -32603, message },
          lastUpdatedAt: failed.lastUpdatedAt,
        });
        expect(Date.parse(failed.lastUpdatedAt)).toBeGreaterThan(now);
        // Settled once: later reads and endings change nothing.
        expect(await b.update('probe', { status: 'completed', result: { content: [] } })).toEqual(failed);
        expect(await a.get('probe')).toEqual(failed);
        // A renewal that reaches the store before any read, however late, keeps its task running; the
        // tasks that ended (settled by a reader, completed, gone) are given back.
        expect(await a.renewLeases!(['late', 'probe', 'ended', 'nope'])).toEqual(['probe', 'ended', 'nope']);
        expect(await b.get('late')).toMatchObject({ status: 'working' });
        expect(await b.get('unleased')).toMatchObject({ status: 'working' });
        expect(await b.get('ended')).toMatchObject({ status: 'completed' });
        // A listing settles the tasks it shows.
        const [listed] = (await b.list('alice', { limit: 10 })).records;
        expect(listed).toMatchObject({
          taskId: 'listed',
          status: 'failed',
          error: { code: -32603, message: expect.stringContaining('task listed stopped') as unknown },
        });
        expect(await a.get('listed')).toEqual(listed);
      },
    );

    it.runIf(leases)(
      'frees the place of a leased task whose lease ran out (its process taken for dead)',
      async () => {
        const leaseMs = 1000;
        const { a, b, clock } = await make({ leaseMs });
        const limit = { key: 'principal:alice', max: 1 };
        await a.create(record(clock.now(), { taskId: 'orphan' }), { lease: true, limit });
        await expect(b.create(record(clock.now(), { taskId: 'next' }), { limit })).rejects.toThrow(
          TaskLimitReached,
        );
        await clock.after(leaseMs, async () => {
          await b.create(record(clock.now(), { taskId: 'next' }), { lease: true, limit });
        });
        expect(await a.get('orphan')).toMatchObject({ status: 'failed' });
      },
    );

    it.runIf(!leases)('ignores leases: a leased task runs on without renewals', async () => {
      const { a, b, clock } = await make({ leaseMs: 1000 });
      expect('renewLeases' in a).toBe(false);
      await a.create(record(clock.now()), { lease: true });
      await clock.after(60_000, async () => {
        expect(await b.get('t1')).toMatchObject({ status: 'working' });
      });
    });

    const asking = (now: number) =>
      record(now, {
        status: 'input_required',
        inputRequests: { q1: { method: 'roots/list' }, q2: { method: 'roots/list' } },
      });

    it('keeps the latest maxKept ended tasks of a limit key: the oldest ended go as the next is created', async () => {
      const { a, b, clock } = await make();
      const now = clock.now();
      const limit = { key: 'session:s1', max: 2, maxKept: 2 };
      const start = (store: TaskStore, taskId: string, at = now) =>
        store.create(record(at, { taskId, owner: 'session:s1' }), { limit });
      const end = (store: TaskStore, taskId: string) => store.update(taskId, { status: 'completed' });
      const kept = async (ids: string[]) =>
        (await Promise.all(ids.map(async (id) => ((await b.get(id)) ? id : undefined)))).filter(Boolean);
      const ids = ['k1', 'k2', 'k3', 'k4', 'r1'];
      // Tasks created and ended one after another, through both handles (as a caller running short tasks in
      // a loop): ended ones past maxKept go, the oldest first, as the next task of the key is created.
      for (const [i, id] of ['k1', 'k2', 'k3'].entries()) {
        await start(i % 2 ? b : a, id, now + i);
        await end(i % 2 ? a : b, id);
      }
      await start(a, 'r1', now + 3);
      expect(await kept(ids)).toEqual(['k2', 'k3', 'r1']);
      // A running task is never dropped, however old; ended ones of other keys, or of no key, stay.
      await a.create(record(now, { taskId: 'o1' }), { limit: { key: 'other', max: 1, maxKept: 1 } });
      await end(a, 'o1');
      await a.create(record(now, { taskId: 'n1' }));
      await end(b, 'n1');
      await start(b, 'k4', now + 4);
      await end(a, 'k4');
      for (const id of ['x1', 'x2']) {
        await start(a, id, now + 5);
        await end(b, id);
      }
      // k2 went as x1 was created, k3 as x2 was; x2, ended since, counts from the next creation (ended tasks
      // not counted yet are at most the key's running ones).
      expect(await kept([...ids, 'x1', 'x2'])).toEqual(['k4', 'r1', 'x1', 'x2']);
      expect(await kept(['o1', 'n1'])).toEqual(['o1', 'n1']);
      expect((await pages(b, 'session:s1', 10)).flat()).toEqual(['r1', 'k4', 'x1', 'x2']);
    });

    it('keeps answers to pending questions for every take, until the question is no longer pending', async () => {
      const { a, b, clock } = await make();
      await a.create(asking(clock.now()));
      // Only pending questions; a first answer is kept, a second to the same key ignored.
      expect(await b.answerInput!('t1', { q1: { roots: [] }, other: { roots: [] } })).toEqual(['q1']);
      expect(await a.answerInput!('t1', { q1: { roots: [{ uri: 'file:///x' }] } })).toEqual([]);
      expect(await a.answerInput!('nope', { q1: { roots: [] } })).toEqual([]);
      expect(await a.takeAnswers!('t1')).toEqual({ q1: { roots: [] } });
      // A take whose reply was lost (it timed out, and ran late) loses nothing: the answer is taken again.
      expect(await b.takeAnswers!('t1')).toEqual({ q1: { roots: [] } });
      expect(await b.takeAnswers!('nope')).toEqual({});
      // Its question answered (no longer pending), the answer goes.
      await a.update('t1', { inputRequests: { q2: { method: 'roots/list' } } });
      expect(await b.takeAnswers!('t1')).toEqual({});
      expect(await a.answerInput!('t1', { q2: { roots: [] } })).toEqual(['q2']);
      // No answer once the task has ended.
      await a.update('t1', { status: 'cancelled', inputRequests: undefined });
      expect(await b.answerInput!('t1', { q2: { roots: [] } })).toEqual([]);
      expect(await a.takeAnswers!('t1')).toEqual({});
    });

    it('lets one claimant at a time send a question, until its claim lapses or the question is answered', async () => {
      const { a, b, clock } = await make();
      await a.create(asking(clock.now()));
      const claims = await Promise.all([
        a.claimInput!('t1', ['q1', 'other'], 'x', 1000),
        b.claimInput!('t1', ['q1'], 'y', 1000),
      ]);
      expect(claims.flat()).toEqual(['q1']);
      const [holder, other] = claims[0]!.length === 1 ? (['x', 'y'] as const) : (['y', 'x'] as const);
      // The holder renews; the other gets nothing until the claim lapses.
      expect(await b.claimInput!('t1', ['q1', 'q2'], holder, 1000)).toEqual(['q1', 'q2']);
      expect(await a.claimInput!('t1', ['q1', 'q2'], other, 60_000)).toEqual([]);
      await clock.after(1000, async () => {
        expect(await a.claimInput!('t1', ['q1'], other, 60_000)).toEqual(['q1']);
      });
      // An answered question is claimed by nobody.
      await a.answerInput!('t1', { q2: { roots: [] } });
      expect(await b.claimInput!('t1', ['q2'], 'z', 1000)).toEqual([]);
    });

    it("answers an id naming the store's other keys as no task: no error, nothing changed", async () => {
      const { a, b, clock } = await make();
      await a.create(
        { ...asking(clock.now()), owner: 'session:s1' },
        { limit: { key: 'session:s1', max: 5 } },
      );
      // The owner's index, its running tasks and the task's answers exist now, in a store that keeps them by key.
      expect(await a.answerInput!('t1', { q1: { roots: [] } })).toEqual(['q1']);
      for (const id of [
        'tasks-of:session:s1',
        'running-of:session:s1',
        'ended-of:session:s1',
        'input:t1',
        't:t1',
        'task:t1',
        ':t1',
        '',
      ]) {
        expect(await b.get(id)).toBeUndefined();
        expect(await b.update(id, { status: 'cancelled' })).toBeUndefined();
      }
      expect(await a.get('t1')).toMatchObject({ taskId: 't1', status: 'input_required' });
      expect(await a.takeAnswers!('t1')).toEqual({ q1: { roots: [] } });
      expect(await pages(a, 'session:s1', 10)).toEqual([['t1']]);
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
