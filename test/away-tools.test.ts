// A tool disabled with a reason (`handle.disable(reason)`): out of every list, and a call of it answered with
// an isError result that gives the reason — no handler, no middleware — in both eras; without a reason, or
// for a caller who may not call it, a call is answered as a call of a tool that does not exist.
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../src/protocol/errors.js';
import { Server, ServerError, text } from '../src/server/index.js';
import { serverCore } from '../src/server/server.js';
import { linkServer } from './_setup.js';

function build() {
  const ran: string[] = [];
  const server = new Server({ name: 'away', version: '1.0.0' });
  const search = server.tool('search', { description: 'Searches' }, () => {
    ran.push('search');
    return text('found');
  });
  const admin = server.tool('admin', { access: { roles: ['admin'] } }, () => text('done'));
  server.tool('echo', {}, () => text('echo'));
  server.use(async (call, next) => {
    ran.push(`middleware:${call.tool.name}`);
    return next();
  });
  return { server, search, admin, ran };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('a tool away for a while [%s]', (protocolVersion) => {
  it('is out of the list, and a call of it gets an isError result with the reason; nothing runs', async () => {
    const { server, search, ran } = build();
    await using c = await linkServer(server, { protocolVersion });
    search.disable('The search index is being rebuilt; try again in a few minutes.');
    expect((await c.client.listTools({ refresh: true })).map((t) => t.name)).toEqual(['echo']);
    const result = await c.client.callTool('search', {});
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The search index is being rebuilt; try again in a few minutes.' }],
    });
    expect(ran).toEqual([]);
    search.disable('Back at noon.');
    expect(await c.client.callTool('search', {})).toMatchObject({
      isError: true,
      content: [{ text: 'Back at noon.' }],
    });
    search.enable();
    expect(await c.client.callTool('search', {})).toMatchObject({ content: [{ text: 'found' }] });
    expect(ran).toEqual(['middleware:search', 'search']);
  });

  it('without a reason, or for a caller who may not call it, is an unknown tool (-32602)', async () => {
    const { server, search, admin } = build();
    await using c = await linkServer(server, { protocolVersion });
    search.disable();
    const error = await c.client.callTool('search', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: search' });
    admin.disable('Maintenance until noon.');
    await expect(c.client.callTool('admin', {})).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: admin',
    });
  });
});

describe('disable(reason) on the registry', () => {
  it('changes the list once: a second reason changes only the answer, enable() forgets it', () => {
    const { server, search } = build();
    const tools = serverCore(server).tools;
    const v0 = tools.version;
    search.disable('one');
    search.disable('two');
    expect(tools.version).toBe(v0 + 1);
    expect(tools.away('search')?.reason).toBe('two');
    search.enable();
    expect(tools.away('search')).toBeUndefined();
    search.disable();
    expect(tools.away('search')).toBeUndefined();
  });

  it('refuses a reason that is not a string', () => {
    const { search } = build();
    expect(() => search.disable(42 as unknown as string)).toThrow(ServerError);
    expect(search.enabled).toBe(true);
  });
});
