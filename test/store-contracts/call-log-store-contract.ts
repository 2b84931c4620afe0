// The CallLogStore contract: what every implementation (memory, Redis) does, tested the same way. Handle
// `a` is the instance running the calls (it starts, reports and finishes them); `b` is another instance
// reading them.
import { describe, expect, it } from 'vitest';
import {
  lostCallError,
  type CallLogStore,
  type CallLogStoreOptions,
} from '../../src/stores/call-log-store.js';
import type { CallEnd, CallInfo, CallSummary } from '../../src/stores/gateway-records.js';
import type { MakeStores } from './harness.js';

export function describeCallLogStoreContract(
  name: string,
  make: MakeStores<CallLogStore, CallLogStoreOptions>,
): void {
  describe(`CallLogStore contract: ${name}`, () => {
    const startedAt = new Date().toISOString();
    const info = (id: number): CallInfo => ({
      id,
      caller: { principal: 'alice', sessionId: 's-1' },
      upstream: 'files',
      tool: 'write_file',
      exposedName: 'files__write_file',
      argumentsDigest: `sha256:${id}`,
    });
    const ok: CallEnd = { decision: 'allowed', outcome: 'ok', durationMs: 1.25 };
    const result = (text: string) => ({ content: [{ type: 'text' as const, text }] });
    const ids = async (store: CallLogStore, limit?: number) =>
      (await store.list(limit)).map((summary) => summary.call.id);

    it("lists both handles' calls, newest first, without their arguments; reads one with them through the other", async () => {
      const { a, b } = await make();
      a.start(info(1), { path: 'a.txt', text: 'ünï "code"' }, startedAt);
      await a.flushed();
      b.start(info(2), {}, startedAt);
      await b.flushed();
      expect(await ids(a)).toEqual([2, 1]);
      expect(await ids(b, 1)).toEqual([2, 1]); // the latest one, and 1, which still runs
      const [, first] = await b.list();
      expect(first).toEqual({ call: info(1), startedAt, state: 'running', hasResult: false });
      expect(await b.get(1)).toEqual({
        call: info(1),
        startedAt,
        state: 'running',
        hasResult: false,
        arguments: { path: 'a.txt', text: 'ünï "code"' },
      });
      expect(await b.get(99)).toBeUndefined();
      a.finish(1, ok);
      await a.flushed();
      expect(await ids(b, 1)).toEqual([2]);
    });

    it('records progress, then the end with its result, for the other handle to read', async () => {
      const { a, b } = await make();
      a.start(info(1), { n: 1 }, startedAt);
      await a.flushed();
      a.progress(1, { progress: 1, total: 2, message: 'half' });
      await a.flushed();
      expect(await b.get(1)).toMatchObject({
        state: 'running',
        progress: { progress: 1, total: 2, message: 'half' },
      });
      a.finish(1, { ...ok, approvalId: 'ap-1', cancelledBy: 'bob', result: result('done') });
      await a.flushed();
      expect(await b.get(1)).toEqual({
        call: info(1),
        startedAt,
        state: 'finished',
        progress: { progress: 1, total: 2, message: 'half' },
        decision: 'allowed',
        outcome: 'ok',
        durationMs: 1.25,
        approvalId: 'ap-1',
        cancelledBy: 'bob',
        hasResult: true,
        arguments: { n: 1 },
        result: result('done'),
      });
      const [summary] = await b.list();
      expect(summary).toMatchObject({ state: 'finished', hasResult: true });
      expect(summary).not.toHaveProperty('result');
      expect(summary).not.toHaveProperty('arguments');
    });

    it('records a call that starts and ends at once, and an end with an error instead of a result', async () => {
      const { a, b } = await make();
      a.start(info(1), { n: 1 }, startedAt);
      a.finish(1, { ...ok, result: result('quick') });
      a.start(info(2), { n: 2 }, startedAt);
      a.finish(2, { ...ok, outcome: 'error', error: 'upstream said no' });
      await a.flushed();
      expect(await b.get(1)).toMatchObject({
        state: 'finished',
        arguments: { n: 1 },
        result: result('quick'),
      });
      expect(await b.get(2)).toMatchObject({
        state: 'finished',
        outcome: 'error',
        error: 'upstream said no',
        hasResult: false,
      });
      expect(await ids(b)).toEqual([2, 1]);
    });

    it('keeps the latest maxCalls and every running call older than them, and lists those after the latest', async () => {
      const { a, b } = await make({ maxCalls: 2 });
      // It says what it keeps (GET /api/calls passes it on: a console keeps no more).
      expect(b.maxCalls).toBe(2);
      a.start(info(1), { n: 1 }, startedAt); // stays running
      await a.flushed();
      for (const id of [2, 3, 4]) {
        a.start(info(id), { id }, startedAt);
        await a.flushed();
        a.finish(id, { ...ok, result: result(`r${id}`) });
        await a.flushed();
      }
      expect(await ids(b)).toEqual([4, 3, 1]);
      expect(await ids(b, 1)).toEqual([4, 1]);
      expect(await b.get(2)).toBeUndefined();
      expect(await b.get(3)).toMatchObject({ state: 'finished', arguments: { id: 3 }, hasResult: true });
      expect(await b.get(1)).toMatchObject({ state: 'running', hasResult: false });
      // Once it ends, it is older than the latest maxCalls: it goes.
      a.finish(1, ok);
      await a.flushed();
      expect(await ids(b)).toEqual([4, 3]);
      expect(await b.get(1)).toBeUndefined();
    });

    it('lists the running calls older than the latest, maxCalls of them at most (the newest)', async () => {
      const { a, b } = await make({ maxCalls: 2 });
      for (const id of [1, 2, 3]) a.start(info(id), { id }, startedAt); // stay running
      await a.flushed();
      for (const id of [4, 5, 6]) {
        a.start(info(id), { id }, startedAt);
        a.finish(id, ok);
        await a.flushed();
      }
      expect(await ids(b)).toEqual([6, 5, 3, 2]);
      expect(await ids(b, 1)).toEqual([6, 3, 2]);
      // Call 1 is left out, and the listing (`changes` without a marker) says so.
      expect((await b.changes!(undefined)).runningOmitted).toBe(1);
      expect(await b.get(1)).toMatchObject({ state: 'running' });
      expect(await b.get(4)).toBeUndefined();
    });

    it('counts the running calls its listing leaves out, in every answer, until they end or are lost', async () => {
      const { a, b } = await make({ maxCalls: 2 });
      // Instance 5 runs calls that stay running until it stops; instance 6 the others.
      const [five, six] = [5 * 2 ** 32, 6 * 2 ** 32];
      const stopFive = await a.live(5);
      const stopSix = await a.live(6);
      const run = async (id: number) => {
        a.start(info(id), {}, startedAt);
        await a.flushed();
      };
      const done = async (id: number) => {
        await run(id);
        a.finish(id, ok);
        await a.flushed();
      };
      const short = (calls: CallSummary[]) =>
        calls.map(
          (c) => `${c.call.id >= six ? 'six' : 'five'}+${c.call.id % 2 ** 32} ${c.outcome ?? c.state}`,
        );
      for (const id of [five + 1, five + 2, five + 3]) await run(id);
      for (const id of [six + 1, six + 2, six + 3]) await done(id);
      // The latest 2 and the 2 newest running older: five+1 is left out, and the listing says so.
      const first = await b.changes!(undefined);
      expect(short(first.calls)).toEqual(['six+3 ok', 'six+2 ok', 'five+3 running', 'five+2 running']);
      expect(first.runningOmitted).toBe(1);
      expect((await b.changes!(undefined, 1)).runningOmitted).toBe(1);
      // An answer with the changes only counts them too.
      await done(six + 4);
      const second = await b.changes!(first.marker);
      expect(second).toMatchObject({ whole: false, runningOmitted: 1 });
      expect(short(second.calls)).toEqual(['six+4 ok']);
      // five+3 ends (and goes, older than the latest 2): five+2 and five+1 are listed, none left out.
      a.finish(five + 3, ok);
      await a.flushed();
      const third = await b.changes!(second.marker);
      expect(short(third.calls)).toEqual(['six+4 ok', 'six+3 ok', 'five+2 running', 'five+1 running']);
      expect(third.runningOmitted).toBe(0);
      // Two more run, two more end after them: the 2 newest running older are six's, both of five's left out.
      for (const id of [six + 5, six + 6]) await run(id);
      for (const id of [six + 7, six + 8]) await done(id);
      const fourth = await b.changes!(undefined);
      expect(short(fourth.calls)).toEqual(['six+8 ok', 'six+7 ok', 'six+6 running', 'six+5 running']);
      expect(fourth.runningOmitted).toBe(2);
      // Instance 5 stops: its running calls are lost (a change, listed or not), no longer left out.
      await stopFive();
      const fifth = await b.changes!(fourth.marker);
      expect(fifth.whole).toBe(false);
      expect(short(fifth.calls)).toEqual(['five+2 lost', 'five+1 lost']);
      expect(fifth.runningOmitted).toBe(0);
      expect((await b.changes!(undefined)).runningOmitted).toBe(0);
      await stopSix();
    });

    it('records a burst of calls, more than one batch holds, all of them', async () => {
      const { a, b } = await make();
      for (let id = 1; id <= 600; id++) {
        a.start(info(id), { id }, startedAt);
        if (id % 2 === 0) a.finish(id, { ...ok, result: result('x'.repeat(4000)) });
      }
      await a.flushed();
      const listed = await ids(b);
      // The latest 500, then the 50 older that still run (1, 3 … 99).
      expect(listed).toHaveLength(550);
      expect(listed.slice(0, 3)).toEqual([600, 599, 598]);
      expect(listed.slice(500, 502)).toEqual([99, 97]);
      expect(await b.get(600)).toMatchObject({ state: 'finished', arguments: { id: 600 }, hasResult: true });
      expect(await b.get(599)).toMatchObject({ state: 'running', arguments: { id: 599 } });
    });

    it('does not keep a result larger than maxResultBytes, and says so', async () => {
      const { a, b } = await make({ maxResultBytes: 200 });
      a.start(info(1), {}, startedAt);
      a.finish(1, { ...ok, result: result('y'.repeat(400)) });
      await a.flushed();
      const record = await b.get(1);
      expect(record).toMatchObject({ state: 'finished', hasResult: false, resultDropped: 'too-large' });
      expect(record).not.toHaveProperty('result');
    });

    it('keeps no arguments larger than maxArgumentsBytes (UTF-8 bytes of JSON), and says so, listed too', async () => {
      const { a, b } = await make({ maxArgumentsBytes: 200 });
      a.start(info(1), { text: 'ü'.repeat(150) }, startedAt); // 163 characters of JSON, 313 bytes
      a.start(info(2), { text: 'u'.repeat(150) }, startedAt);
      a.finish(1, { ...ok, result: result('fine') });
      await a.flushed();
      expect(await b.get(1)).toMatchObject({
        state: 'finished',
        arguments: {},
        argumentsDropped: 'too-large',
        hasResult: true,
        result: result('fine'),
      });
      expect(await b.get(2)).toMatchObject({ arguments: { text: 'u'.repeat(150) } });
      expect(await b.get(2)).not.toHaveProperty('argumentsDropped');
      const listed = await b.list();
      expect(listed.map((summary) => summary.argumentsDropped)).toEqual([undefined, 'too-large']);
    });

    it('counts a result in UTF-8 bytes, and cuts an error longer than maxResultBytes', async () => {
      const { a, b } = await make({ maxResultBytes: 200 });
      a.start(info(1), {}, startedAt);
      a.finish(1, { ...ok, result: result('ü'.repeat(120)) }); // under 200 characters, over 200 bytes
      a.start(info(2), {}, startedAt);
      a.finish(2, { ...ok, outcome: 'error', error: `failed: ${'ü'.repeat(400)}` });
      a.start(info(3), {}, startedAt);
      a.finish(3, { ...ok, outcome: 'error', error: 'short' });
      await a.flushed();
      expect(await b.get(1)).toMatchObject({ hasResult: false, resultDropped: 'too-large' });
      const { error } = (await b.get(2))!;
      expect(error).toMatch(/^failed: ü+ … \(cut\)$/);
      expect(Buffer.byteLength(JSON.stringify(error))).toBeLessThanOrEqual(200);
      expect(Buffer.byteLength(JSON.stringify(error))).toBeGreaterThan(100);
      expect(await b.get(3)).toMatchObject({ error: 'short' });
    });

    it('ignores the progress and end of a call it does not keep', async () => {
      const { a, b } = await make();
      a.progress(7, { progress: 1 });
      a.finish(7, { ...ok, result: result('lost') });
      await a.flushed();
      expect(await b.get(7)).toBeUndefined();
      expect(await b.list()).toEqual([]);
    });

    it('shows the calls an instance still runs as lost once it stops saying it lives, to both handles', async () => {
      const { a, b } = await make();
      const three = 3 * 2 ** 32;
      const four = 4 * 2 ** 32;
      const stopThree = await a.live(3);
      const stopFour = await b.live(4);
      a.start(info(three + 1), { n: 1 }, startedAt);
      a.progress(three + 1, { progress: 1 });
      a.start(info(three + 2), { n: 2 }, startedAt);
      a.finish(three + 2, { ...ok, result: result('done') });
      await a.flushed();
      b.start(info(four + 1), { n: 3 }, startedAt);
      await b.flushed();
      expect(await b.get(three + 1)).toMatchObject({ state: 'running' });
      expect((await b.list()).map((call) => call.state)).toEqual(['running', 'finished', 'running']);

      await stopThree();
      const lost = {
        call: info(three + 1),
        startedAt,
        state: 'finished',
        outcome: 'lost',
        progress: { progress: 1 },
        hasResult: false,
      };
      for (const reader of [b, a, b]) {
        expect(await reader.get(three + 1)).toEqual({
          ...lost,
          arguments: { n: 1 },
          error: lostCallError(3),
        });
        expect(await reader.list()).toEqual([
          expect.objectContaining({ call: info(four + 1), state: 'running' }),
          expect.objectContaining({ call: info(three + 2), state: 'finished', outcome: 'ok' }),
          lost,
        ]);
      }
      expect(await a.get(three + 2)).toMatchObject({ outcome: 'ok', result: result('done') });
      await stopFour();
    });

    it('answers the calls changed after a marker (started, progressed, ended), and the listing without one', async () => {
      const { a, b } = await make();
      a.start(info(1), { n: 1 }, startedAt);
      a.start(info(2), { n: 2 }, startedAt);
      await a.flushed();
      const first = await b.changes!(undefined);
      expect(first).toMatchObject({ whole: true });
      expect(first.calls.map((c) => c.call.id)).toEqual([2, 1]);
      const still = await a.changes!(first.marker);
      expect(still).toEqual({ calls: [], whole: false, marker: first.marker, runningOmitted: 0 });

      a.start(info(3), { n: 3 }, startedAt);
      a.finish(2, ok);
      await a.flushed();
      const second = await b.changes!(first.marker);
      expect(second.whole).toBe(false);
      expect(second.calls.map((c) => `${c.call.id} ${c.state}`)).toEqual(['3 running', '2 finished']);
      a.progress(1, { progress: 1, total: 2 });
      await a.flushed();
      const third = await b.changes!(second.marker);
      expect(third.calls).toEqual([
        expect.objectContaining({ call: info(1), progress: { progress: 1, total: 2 } }),
      ]);
      expect(third.calls[0]).not.toHaveProperty('arguments');
      expect((await b.changes!(third.marker)).calls).toEqual([]);
    });

    it("lists anew for a marker it cannot follow: not one, another store's, ahead of it, or before a trimmed call changed", async () => {
      const { a, b } = await make({ maxCalls: 2 });
      a.start(info(1), { n: 1 }, startedAt);
      await a.flushed();
      const { marker } = await b.changes!(undefined);
      const [epoch, seq] = marker.split('.');
      const other = (await (await make()).b.changes!(undefined)).marker;
      for (const stale of ['nonsense', `${epoch}.${Number(seq) + 1000}`, other, `${epoch}.x`]) {
        expect(await b.changes!(stale)).toMatchObject({ whole: true, marker });
      }
      expect((await b.changes!(marker)).whole).toBe(false);
      // Call 1 ends after the marker, and is trimmed: the marker cannot say so any more.
      a.finish(1, ok);
      for (const id of [2, 3]) {
        a.start(info(id), {}, startedAt);
        a.finish(id, ok);
      }
      await a.flushed();
      const after = await b.changes!(marker);
      expect(after.whole).toBe(true);
      expect(after.calls.map((c) => c.call.id)).toEqual([3, 2]);
      expect((await b.changes!(after.marker)).whole).toBe(false);
    });

    it('numbers a call settled as lost as a change', async () => {
      const { a, b } = await make();
      const five = 5 * 2 ** 32;
      const stopFive = await a.live(5);
      a.start(info(five + 1), {}, startedAt);
      await a.flushed();
      const { marker } = await b.changes!(undefined);
      await stopFive();
      const changed = await b.changes!(marker);
      expect(changed.whole).toBe(false);
      expect(changed.calls).toEqual([expect.objectContaining({ state: 'finished', outcome: 'lost' })]);
      expect((await b.changes!(changed.marker)).calls).toEqual([]);
    });

    it('keeps its own copy: changing what was read changes nothing stored', async () => {
      const { a, b } = await make();
      a.start(info(1), { n: 1 }, startedAt);
      await a.flushed();
      const read = await b.get(1);
      read!.arguments.n = 2;
      read!.call.caller.principal = 'mallory';
      (await b.list())[0]!.call.tool = 'changed';
      expect(await a.get(1)).toMatchObject({ arguments: { n: 1 }, call: info(1) });
    });
  });
}
