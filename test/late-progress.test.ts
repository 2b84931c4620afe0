// Progress notifications MUST stop after completion: a handler's `ctx.progress()` made after its call was
// answered (a timer, a background continuation) sends nothing, and its promise resolves (a rejection would
// be unhandled in such a timer). A 2025-11-25 task-augmented call keeps sending progress after the call
// was answered with its task, until the task ends. Raw JSON-RPC over the in-memory pair.
import { describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, text, type ServerOptions, type ToolContext } from '../src/server/index.js';
import { rawPeer, type RawPeer } from './_raw-peer.js';

/** `progress(2)` 20 ms after the handler returned; what its promise did goes to `events`. */
function later(ctx: ToolContext, events: string[]): void {
  setTimeout(() => {
    ctx.progress(2, 2, 'after').then(
      () => events.push('resolved'),
      () => events.push('rejected'),
    );
  }, 20);
}

/** The progress values `peer` received for `token`, and where its response `id` came among them. */
function progressAround(
  peer: RawPeer,
  token: string | number,
  id: number,
): { before: number[]; after: number[] } {
  const at = peer.received.findIndex((m) => m.id === id && m.method === undefined);
  const values = (messages: JsonObject[]) =>
    messages
      .filter(
        (m) => m.method === 'notifications/progress' && (m.params as JsonObject).progressToken === token,
      )
      .map((m) => (m.params as JsonObject).progress as number);
  return { before: values(peer.received.slice(0, at)), after: values(peer.received.slice(at + 1)) };
}

describe.each([
  ['chained path', {}],
  ['direct path', { toolTimeout: false }],
] as const)('progress after a call was answered (%s)', (_path, options: ServerOptions) => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const)(
    'is not sent, and resolves (%s)',
    async (version) => {
      const events: string[] = [];
      const server = new Server({ name: 'late', version: '1' }, options);
      server.tool('late', {}, async (_args, ctx) => {
        await ctx.progress(1, 2, 'before');
        later(ctx, events);
        return text('returned');
      });
      await using peer = await rawPeer(server, version);
      const id = peer.nextId;
      const result = await peer.result('tools/call', { name: 'late', _meta: { progressToken: 7 } });
      expect(result.content).toEqual([{ type: 'text', text: 'returned' }]);
      await vi.waitFor(() => expect(events).toEqual(['resolved']));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(progressAround(peer, 7, id)).toEqual({ before: [1], after: [] });
    },
  );
});

describe('progress of a 2025-11-25 task-augmented call', () => {
  it('goes on after the call was answered with its task, and stops when the task ends', async () => {
    const events: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const server = new Server({ name: 'late', version: '1' }, { tasks: { pollIntervalMs: 50 } });
    server.tool('long', { task: 'optional' }, async (_args, ctx) => {
      await gate;
      await ctx.progress(1, 2, 'in the task');
      later(ctx, events);
      return text('done');
    });
    await using peer = await rawPeer(server, '2025-11-25');
    const id = peer.nextId;
    const created = await peer.result('tools/call', {
      name: 'long',
      task: {},
      _meta: { progressToken: 'tok' },
    });
    const { taskId } = created.task as { taskId: string };
    open();
    const result = await peer.result('tasks/result', { taskId });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    await vi.waitFor(() => expect(events).toEqual(['resolved']));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(progressAround(peer, 'tok', id)).toEqual({ before: [], after: [1] });
  });
});

describe('progress of a 2026-07-28 call that may become a task (start: handler)', () => {
  it('stops once the call was answered inline', async () => {
    const events: string[] = [];
    const server = new Server({ name: 'late', version: '1' }, { tasks: { pollIntervalMs: 50 } });
    server.tool('maybe', { task: { support: 'optional', start: 'handler' } }, async (_args, ctx) => {
      await ctx.progress(1, 2, 'inline');
      later(ctx, events);
      return text('inline');
    });
    await using peer = await rawPeer(server, '2026-07-28');
    const id = peer.nextId;
    const result = await peer.result('tools/call', {
      name: 'maybe',
      _meta: {
        progressToken: 5,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'inline' }]);
    await vi.waitFor(() => expect(events).toEqual(['resolved']));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(progressAround(peer, 5, id)).toEqual({ before: [1], after: [] });
  });
});
