// One AbortSignal given to many calls at once (a caller's "stop everything" signal): the calls follow it
// through one listener, so Node does not warn of a leak past ten listeners, and aborting it cancels every
// call on the wire (the server's handlers see their signals abort), in both eras. The same for calls that
// run as tasks, which the client follows (polls, waits) on that signal.
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { linkServer } from './_setup.js';

/** Runs `work`, then checks that Node printed no `MaxListenersExceededWarning` meanwhile. */
async function withoutLeakWarning(work: () => Promise<void>): Promise<void> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings).not.toContain('MaxListenersExceededWarning');
}

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'a signal shared by many calls (%s)',
  (protocolVersion) => {
    it('32 calls: followed without a leak warning, and aborting it cancels them all', async () => {
      const server = new Server({ name: 'shared', version: '1.0.0' });
      let started = 0;
      let cancelled = 0;
      server.tool('wait', {}, (_args, ctx) => {
        started++;
        return new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            cancelled++;
            resolve(text('cancelled'));
          }),
        );
      });
      await using connected = await linkServer(server, { protocolVersion });
      await withoutLeakWarning(async () => {
        const stop = new AbortController();
        const calls = Array.from({ length: 32 }, () =>
          connected.client.callTool('wait', {}, { signal: stop.signal }).then(
            () => 'answered',
            (error: Error) => error.message,
          ),
        );
        await expect.poll(() => started).toBe(32);
        stop.abort('enough');
        const outcomes = await Promise.all(calls);
        expect(outcomes.every((message) => message.includes('cancelled'))).toBe(true);
        await expect.poll(() => cancelled).toBe(32);
      });
    });

    it('24 tasks: followed without a leak warning while the client follows them', async () => {
      const server = new Server(
        { name: 'shared-tasks', version: '1.0.0' },
        { tasks: { ttlMs: 60_000, pollIntervalMs: 5 } },
      );
      server.tool('slow', { task: 'optional' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return text('done');
      });
      await using connected = await linkServer(server, { protocolVersion });
      await withoutLeakWarning(async () => {
        const shared = new AbortController();
        const results = await Promise.all(
          Array.from({ length: 24 }, async () => {
            const task = await connected.client.callToolAsTask('slow', {}, { signal: shared.signal });
            return task.result();
          }),
        );
        expect(results.map((r) => r.content)).toEqual(
          Array.from({ length: 24 }, () => [{ type: 'text', text: 'done' }]),
        );
      });
    });
  },
);
