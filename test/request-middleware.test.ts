// Request middleware (`server.useRequest`): around every request a session serves, in both eras, with the
// principal; it can refuse, answer, or change results; tool calls still pass the tool-call chain inside it.
import { describe, expect, it } from 'vitest';
import { ErrorCode, ProtocolError } from '../src/protocol/errors.js';
import { Server, text, type Principal, type ServerRequest } from '../src/server/index.js';
import { linkServer } from './_setup.js';

const connect = (server: Server, protocolVersion: '2025-11-25' | '2026-07-28', principal?: Principal) =>
  linkServer(server, { protocolVersion }, principal ? { principal } : {});

function build(): { server: Server; seen: string[]; requests: ServerRequest[] } {
  const seen: string[] = [];
  const requests: ServerRequest[] = [];
  const server = new Server({ name: 'mw', version: '1.0.0' });
  const inputSchema = { type: 'object', properties: { text: { type: 'string' } } } as const;
  server.tool('echo', { inputSchema }, (args) => text(String(args.text)));
  server.prompt('greet', {}, () => 'hello');
  server.useRequest(async (request, next) => {
    seen.push(`outer>${request.method}`);
    requests.push(request);
    const result = await next();
    seen.push(`outer<${request.method}`);
    return result;
  });
  server.useRequest(async (request, next) => {
    if (request.method === 'prompts/get' && request.principal?.roles?.includes('writer') !== true)
      throw new ProtocolError(ErrorCode.Forbidden, 'Forbidden: prompts need the writer role');
    if (request.method === 'tools/list') {
      const result = await next();
      return { ...result, tools: (result.tools as { name: string }[]).map((t) => ({ ...t, title: 'Echo' })) };
    }
    return next();
  });
  server.use(async (_call, next) => {
    seen.push('tool-chain');
    return next();
  });
  return { server, seen, requests };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('request middleware [%s]', (protocolVersion) => {
  it('runs around every request in order, around the tool-call chain, and may change results', async () => {
    const { server, seen, requests } = build();
    await using c = await connect(server, protocolVersion, { subject: 'ann', scopes: [] });
    const [tool] = await c.client.listTools();
    expect(tool?.title).toBe('Echo');
    await c.client.callTool('echo', { text: 'x' });
    expect(seen.filter((s) => !s.includes('discover'))).toEqual([
      'outer>tools/list',
      'outer<tools/list',
      'outer>tools/call',
      'tool-chain',
      'outer<tools/call',
    ]);
    const call = requests.find((r) => r.method === 'tools/call');
    expect(call).toMatchObject({
      principal: { subject: 'ann' },
      era: protocolVersion === '2026-07-28' ? 'stateless' : 'handshake',
      protocolVersion,
      params: { name: 'echo', arguments: { text: 'x' } },
    });
  });

  it('with { methods }, sees the requests of those methods only; the others pass by it', async () => {
    const seen: string[] = [];
    const server = new Server({ name: 'scoped', version: '1.0.0' });
    server.tool('echo', {}, () => text('echoed'));
    server.prompt('greet', {}, () => 'hello');
    server.useRequest(
      async (request, next) => {
        seen.push(request.method);
        const result = await next();
        return { ...result, description: 'seen' };
      },
      { methods: ['prompts/get'] },
    );
    await using c = await connect(server, protocolVersion);
    expect(await c.client.callTool('echo', {})).toMatchObject({ content: [{ text: 'echoed' }] });
    await c.client.listTools();
    expect((await c.client.getPrompt('greet')).description).toBe('seen');
    expect(seen).toEqual(['prompts/get']);
  });

  it('refuses methods that are not a list of names', () => {
    const server = new Server({ name: 'bad', version: '1.0.0' });
    const next = (_request: ServerRequest, go: () => Promise<object>) => go() as Promise<never>;
    expect(() => server.useRequest(next, { methods: 'tools/call' as unknown as string[] })).toThrow(
      /methods must be an array/,
    );
    expect(() => server.useRequest(next, { methods: [''] })).toThrow(/methods must be an array/);
  });

  it('can refuse a request with a protocol error, and let it through for another principal', async () => {
    const refused = build();
    await using anon = await connect(refused.server, protocolVersion);
    await expect(anon.client.getPrompt('greet')).rejects.toMatchObject({ code: -31403 });
    const allowed = build();
    await using writer = await connect(allowed.server, protocolVersion, {
      subject: 'w',
      scopes: [],
      roles: ['writer'],
    });
    expect((await writer.client.getPrompt('greet')).messages).toHaveLength(1);
  });
});
