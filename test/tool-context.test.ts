// The handler context: its methods may be destructured (they are bound when first read), and they work
// through the tool-call chain as when called on the context.
import { describe, expect, it } from 'vitest';
import { Server, text, type ToolContext } from '../src/server/index.js';
import { linkServer } from './_setup.js';

function contextServer(): Server {
  const server = new Server({ name: 'ctx', version: '1.0.0' });
  server.tool(
    'steps',
    { description: 'Reports progress through destructured methods' },
    async (_args, { progress, log, signal, requestId, traceparent }: ToolContext) => {
      await progress(1, 2, 'half');
      await progress(2, 2);
      await log('info', 'done');
      return text(`${typeof requestId} ${signal.aborted} ${traceparent ?? 'none'}`);
    },
  );
  server.tool('backwards', { description: 'Progress that goes down' }, async (_args, ctx) => {
    const { progress } = ctx;
    await progress(2);
    expect(ctx.progress).toBe(progress); // bound once, the same function on every read
    await progress(1);
    return text('unreachable');
  });
  return server;
}

describe('tool context', () => {
  it('lets a handler destructure its methods', async () => {
    await using c = await linkServer(contextServer());
    const seen: Array<[number, number | undefined, string | undefined]> = [];
    const result = await c.client.callTool(
      'steps',
      {},
      { onProgress: ({ progress, total, message }) => seen.push([progress, total, message]) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'number false none' }]);
    expect(seen).toEqual([
      [1, 2, 'half'],
      [2, 2, undefined],
    ]);
  });

  it('refuses progress that does not increase, through a destructured method too', async () => {
    await using c = await linkServer(contextServer());
    const result = await c.client.callTool('backwards', {}, { onProgress: () => {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Progress must increase');
  });
});
