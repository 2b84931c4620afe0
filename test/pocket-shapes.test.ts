// The "pocket spec's" shapes (seed "MCP Tools — Client ↔ Server Interactions"): `nextCursor` always a string
// ("" at the end), `structuredContent` always present ({} when there is none), `content` never empty.
// - The client accepts them: a hand-written JSON-lines server (test/fixtures/pocket-server.mjs, no toolwire
//   inside) driven through the library's Client over stdio, and through the `toolwire` command.
// - The server speaks them when asked (`resultShapes: 'pocket'`), in both eras, and only then; a request's
//   `cursor: ""` is the first page either way. Raw JSON-RPC over the in-memory pair (a JSON round trip).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client, ClientError } from '../src/client/index.js';
import { DEFAULT_LIST_LIMITS, followPages } from '../src/client/follow-pages.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, text, type ServerOptions } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer } from './_setup.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
const POCKET = fileURLToPath(new URL('./fixtures/pocket-server.mjs', import.meta.url));
const POCKET_TOOLS = ['echo', 'add', 'lost_sum', 'ping_tool', 'fail', 'time'];
const HANDSHAKE = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-stateless', version: '1' },
};

/** A Client connected over stdio to the pocket server started with `args`; disposing closes it. */
async function pocketClient(args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [POCKET, ...args],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'pocket-test', version: '1' });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/toolwire.mjs ...args`, to its exit. */
function toolwire(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("a server in the pocket spec's shapes, through the library over stdio", () => {
  it('lists every tool of a one-page listing that ends with nextCursor ""', async () => {
    await using client = await pocketClient();
    expect(client.era).toBe('handshake');
    expect((await client.listTools()).map((t) => t.name)).toEqual(POCKET_TOOLS);
  });

  it('follows several pages to the one whose nextCursor is "", and asks no further', async () => {
    // The fixture refuses `cursor: ""` (-32602): a client that sent the end marker back would fail here.
    await using client = await pocketClient(['--page-size', '2']);
    expect((await client.listTools()).map((t) => t.name)).toEqual(POCKET_TOOLS);
    expect((await client.listResources()).map((r) => r.uri)).toEqual([
      'memo://one',
      'memo://two',
      'memo://three',
    ]);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['memo://{name}']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['greet', 'summarize']);
  });

  it('ends a listing at nextCursor null too', async () => {
    await using client = await pocketClient(['--page-size', '4', '--end', 'null']);
    expect((await client.listTools()).map((t) => t.name)).toEqual(POCKET_TOOLS);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['greet', 'summarize']);
  });

  it('accepts structuredContent {} from a tool without an outputSchema, as it came', async () => {
    await using client = await pocketClient();
    expect(await client.callTool('echo', { text: 'hi' })).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: {},
      isError: false,
    });
    expect(await client.callTool('fail')).toEqual({
      content: [{ type: 'text', text: 'it failed' }],
      structuredContent: {},
      isError: true,
    });
  });

  it('still checks structuredContent against a listed outputSchema, {} included', async () => {
    await using client = await pocketClient();
    await client.listTools(); // the client checks output against the schemas of the tools it listed
    expect((await client.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    const error = await client.callTool('lost_sum').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: 'OUTPUT_SCHEMA_MISMATCH' });
    expect((error as Error).message).toMatch(/lost_sum returned structuredContent that does not match/);
  });
});

describe("a server in the pocket spec's shapes, through the toolwire command", () => {
  const server = ['--', process.execPath, POCKET];

  it('`tools` lists every tool of a paged listing that ends with nextCursor "" and exits 0', async () => {
    const run = await toolwire(['tools', '--json', ...server, '--page-size', '2']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as Array<{ name: string }>;
    expect(listed.map((t) => t.name)).toEqual(POCKET_TOOLS);
    const human = await toolwire(['tools', ...server]);
    expect(human.code).toBe(0);
    for (const name of POCKET_TOOLS) expect(human.stdout).toContain(name);
  });

  it('`call` prints a result that carries structuredContent {} and exits 0', async () => {
    const run = await toolwire(['call', '--tool', 'echo', 'text=hello pocket', ...server]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello pocket\n'); // its structuredContent {} says nothing: not printed
    const json = await toolwire(['call', '--json', '--tool', 'echo', 'text=hi', ...server]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: {},
      isError: false,
    });
  });

  it('`call` of a tool whose {} breaks its outputSchema fails with a nonzero exit', async () => {
    const run = await toolwire(['call', '--tool', 'lost_sum', ...server]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/outputSchema/);
  });
});

/** A raw JSON-RPC peer of `server` over the in-memory pair: each request's response, as it arrived. */
async function rawPeer(server: Server) {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  const waiting = new Map<number, (message: JsonObject) => void>();
  clientEnd.onmessage = (message) => {
    const m = message as JsonObject;
    waiting.get(m.id as number)?.(m);
  };
  await clientEnd.start();
  let nextId = 1;
  const request = (method: string, params: JsonObject = {}): Promise<JsonObject> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      void clientEnd.send({ jsonrpc: '2.0', id, method, params });
    });
  };
  /** The result of a request; throws with the error when there is none. */
  const result = async (method: string, params: JsonObject = {}): Promise<JsonObject> => {
    const response = await request(method, params);
    if (!response.result) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as JsonObject;
  };
  const close = () => server.close();
  return { request, result, close, [Symbol.asyncDispose]: close };
}

/** A server of three tools (two per page), one resource, one template, one prompt. */
function server(options: ServerOptions = {}): Server {
  const s = new Server({ name: 'pocket-shapes', version: '1' }, { pageSize: 2, ...options });
  s.tool('say', { description: 'text only' }, () => text('said'));
  s.tool('silent', { description: 'no content at all' }, () => []);
  s.tool('failing_data', { description: 'an error with data and no content' }, () => ({
    content: [],
    structuredContent: { reason: 'broken' },
    isError: true,
  }));
  s.resource('memo://a', { name: 'a' }, () => 'A');
  s.resourceTemplate('memo://{name}', { name: 'memo' }, (uri) => `memo ${uri}`);
  s.prompt('greet', { description: 'hello' }, () => 'Hello');
  return s;
}

const TOOL_NAMES = ['say', 'silent', 'failing_data'];

describe("the server's resultShapes: 'pocket', handshake era", () => {
  it.each(HANDSHAKE)('ends every list with nextCursor "" (%s)', async (version) => {
    await using peer = await rawPeer(server({ resultShapes: 'pocket' }));
    await peer.result('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    const first = await peer.result('tools/list');
    expect(first.nextCursor).toMatch(/^tw1\./);
    const last = await peer.result('tools/list', { cursor: first.nextCursor as string });
    expect((last.tools as JsonObject[]).map((t) => t.name)).toEqual(['failing_data']);
    expect(last.nextCursor).toBe('');
    expect(await peer.result('resources/list')).toEqual({
      resources: [expect.objectContaining({ uri: 'memo://a' })],
      nextCursor: '',
    });
    expect(await peer.result('resources/templates/list')).toEqual({
      resourceTemplates: [expect.objectContaining({ uriTemplate: 'memo://{name}' })],
      nextCursor: '',
    });
    expect(await peer.result('prompts/list')).toEqual({
      prompts: [expect.objectContaining({ name: 'greet' })],
      nextCursor: '',
    });
  });

  it.each(HANDSHAKE)(
    'never sends empty content; structuredContent {} where the revision has it (%s)',
    async (version) => {
      await using peer = await rawPeer(server({ resultShapes: 'pocket' }));
      await peer.result('initialize', {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      const structured = version >= '2025-06-18';
      const call = (name: string) => peer.result('tools/call', { name, arguments: {} });
      expect(await call('say')).toEqual({
        content: [{ type: 'text', text: 'said' }],
        ...(structured ? { structuredContent: {} } : {}),
      });
      expect(await call('silent')).toEqual({
        content: [{ type: 'text', text: '' }],
        ...(structured ? { structuredContent: {} } : {}),
      });
      expect(await call('failing_data')).toEqual({
        content: [{ type: 'text', text: '{"reason":"broken"}' }],
        ...(structured ? { structuredContent: { reason: 'broken' } } : {}),
        isError: true,
      });
    },
  );

  it('serves cursor "" as the first page, with the option and without', async () => {
    for (const resultShapes of ['pocket', 'schema'] as const) {
      await using peer = await rawPeer(server({ resultShapes }));
      await peer.result('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      const first = await peer.result('tools/list');
      expect(await peer.result('tools/list', { cursor: '' })).toEqual(first);
      expect((first.tools as JsonObject[]).map((t) => t.name)).toEqual(['say', 'silent']);
      expect(await peer.result('prompts/list', { cursor: '' })).toEqual(await peer.result('prompts/list'));
      expect(await peer.result('resources/list', { cursor: '' })).toEqual(
        await peer.result('resources/list'),
      );
    }
  });

  it("keeps the schema's shapes by default: no nextCursor at the end, no added structuredContent or text", async () => {
    await using peer = await rawPeer(server());
    await peer.result('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    const first = await peer.result('tools/list');
    const last = await peer.result('tools/list', { cursor: first.nextCursor as string });
    expect(last).not.toHaveProperty('nextCursor');
    expect(await peer.result('prompts/list')).not.toHaveProperty('nextCursor');
    expect(await peer.result('tools/call', { name: 'say', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'said' }],
    });
    expect(await peer.result('tools/call', { name: 'silent', arguments: {} })).toEqual({ content: [] });
    expect(await peer.result('tools/call', { name: 'failing_data', arguments: {} })).toEqual({
      content: [],
      structuredContent: { reason: 'broken' },
      isError: true,
    });
  });

  it('answers a cursor it did not issue with -32602 in both shapes', async () => {
    for (const resultShapes of ['pocket', 'schema'] as const) {
      await using peer = await rawPeer(server({ resultShapes }));
      await peer.result('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      expect((await peer.request('tools/list', { cursor: 'nope' })).error).toMatchObject({ code: -32602 });
    }
  });
});

describe("the server's resultShapes: 'pocket', stateless era (2026-07-28)", () => {
  const stateless = (params: JsonObject = {}) => ({ ...params, _meta: STATELESS_META });

  it('adds structuredContent {} and a text item, but leaves nextCursor out at the end ("" is a cursor there)', async () => {
    await using peer = await rawPeer(server({ resultShapes: 'pocket' }));
    const first = await peer.result('tools/list', stateless());
    expect(first.nextCursor).toMatch(/^tw1\./);
    const last = await peer.result('tools/list', stateless({ cursor: first.nextCursor as string }));
    expect(last).toMatchObject({
      resultType: 'complete',
      tools: [expect.objectContaining({ name: 'failing_data' })],
    });
    expect(last).not.toHaveProperty('nextCursor');
    expect(await peer.result('prompts/list', stateless())).not.toHaveProperty('nextCursor');
    expect(await peer.result('tools/call', stateless({ name: 'silent', arguments: {} }))).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: '' }],
      structuredContent: {},
    });
    expect(await peer.result('tools/call', stateless({ name: 'say', arguments: {} }))).toMatchObject({
      content: [{ type: 'text', text: 'said' }],
      structuredContent: {},
    });
  });

  it('serves cursor "" as the first page, with the option and without', async () => {
    for (const resultShapes of ['pocket', 'schema'] as const) {
      await using peer = await rawPeer(server({ resultShapes }));
      const first = await peer.result('tools/list', stateless());
      expect(await peer.result('tools/list', stateless({ cursor: '' }))).toEqual(first);
    }
  });

  it("keeps the schema's shapes by default", async () => {
    await using peer = await rawPeer(server());
    const result = await peer.result('tools/call', stateless({ name: 'silent', arguments: {} }));
    expect(result).toMatchObject({ resultType: 'complete', content: [] });
    expect(result).not.toHaveProperty('structuredContent');
  });
});

describe("toolwire's Client against toolwire's Server in pocket shapes", () => {
  it.each(['2025-11-25', '2026-07-28'] as const)('lists every page and calls tools (%s)', async (version) => {
    await using linked = await linkServer(server({ resultShapes: 'pocket' }), { protocolVersion: version });
    expect(linked.client.protocolVersion).toBe(version);
    expect((await linked.client.listTools()).map((t) => t.name)).toEqual(TOOL_NAMES);
    expect((await linked.client.listPrompts()).map((p) => p.name)).toEqual(['greet']);
    expect(await linked.client.callTool('silent')).toMatchObject({
      content: [{ type: 'text', text: '' }],
      structuredContent: {},
    });
  });
});

describe('where a listing ends, by era', () => {
  /** Pages: "" → first page (as a server that reads "" as the start does), "p2" → the last. */
  const pages: Record<string, JsonObject> = {
    start: { tools: [{ name: 'a' }], nextCursor: '' },
    '': { tools: [{ name: 'b' }], nextCursor: 'p2' },
    p2: { tools: [{ name: 'c' }] },
  };
  const fetchPage = (cursor: string | undefined) => Promise.resolve(pages[cursor ?? 'start']!);
  const follow = (emptyCursorEnds: boolean) =>
    followPages(fetchPage, {
      method: 'tools/list',
      key: 'tools',
      limits: { ...DEFAULT_LIST_LIMITS, maxPages: 10 },
      emptyCursorEnds,
      accept: (item): item is JsonObject => typeof item === 'object' && item !== null,
    });

  it('ends at "" in the handshake era', async () => {
    expect(await follow(true)).toEqual([{ name: 'a' }]);
  });

  it('follows "" as a cursor in the stateless era (2026-07-28: it MUST NOT be taken as the end)', async () => {
    expect(await follow(false)).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
  });
});
