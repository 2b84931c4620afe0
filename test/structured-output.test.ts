// Structured output that is not an object (SEP-2106, 2026-07-28): a 2026-07-28 client gets the value and
// the schema as they are, a 2025-06-18 / 2025-11-25 client gets both wrapped under `result` (its revision
// allows only objects), older clients get the JSON text only.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileJsonSchema } from '../src/schema/index.js';
import { Server, structured } from '../src/server/index.js';
import { rawPeer } from './_raw-peer.js';
import { describeMatrix } from './_setup.js';
import { RawWire } from './_wire.js';

// What test/fixtures/structured-server.mjs registers and returns.
const FIXTURE = fileURLToPath(new URL('./fixtures/structured-server.mjs', import.meta.url));
const { USERS, USERS_SCHEMA, GREETING_SCHEMA, TREE_SCHEMA, TREE } = (await import(
  new URL('./fixtures/structured-server.mjs', import.meta.url).href
)) as {
  USERS: { id: string; name: string }[];
  USERS_SCHEMA: Record<string, unknown>;
  GREETING_SCHEMA: Record<string, unknown>;
  TREE_SCHEMA: { $ref: string; $defs: { node: { properties: Record<string, unknown> } } };
  TREE: Record<string, unknown>;
};
const USERS_JSON = JSON.stringify(USERS);
const wrapped = (schema: object) => ({
  type: 'object',
  properties: { result: schema },
  required: ['result'],
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('registering a tool', () => {
  it('accepts any outputSchema, but still only an object inputSchema', () => {
    const server = new Server({ name: 's', version: '1' });
    expect(() => server.tool('a', { outputSchema: { type: 'array' } }, () => structured([]))).not.toThrow();
    expect(() => server.tool('b', { outputSchema: { type: 'string' } }, () => structured('x'))).not.toThrow();
    expect(() => server.tool('c', { outputSchema: {} }, () => structured(null))).not.toThrow();
    expect(() => server.tool('d', { inputSchema: { type: 'array' } }, () => 'x')).toThrow(
      /inputSchema must describe an object/,
    );
  });

  it('builds a structured result from any JSON value, with its JSON as text', () => {
    expect(structured([1, 2])).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
      structuredContent: [1, 2],
    });
    expect(structured('hi')).toEqual({ content: [{ type: 'text', text: '"hi"' }], structuredContent: 'hi' });
    expect(structured(null)).toEqual({ content: [{ type: 'text', text: 'null' }], structuredContent: null });
    expect(() => structured(undefined)).toThrow(TypeError);
  });
});

describe('a 2026-07-28 client on the wire', () => {
  it('lists the outputSchemas as registered', async () => {
    await using wire = new RawWire(FIXTURE);
    const list = (await wire.call(1, 'tools/list', { _meta: META })) as {
      result: { tools: Array<{ name: string; outputSchema?: unknown }> };
    };
    const schemas = Object.fromEntries(list.result.tools.map((t) => [t.name, t.outputSchema]));
    expect(schemas).toEqual({
      list_users: USERS_SCHEMA,
      greeting: GREETING_SCHEMA,
      tree: TREE_SCHEMA,
      bad_users: USERS_SCHEMA,
    });
  });

  it('returns an array as structuredContent, with its JSON as text', async () => {
    await using wire = new RawWire(FIXTURE);
    const call = (await wire.call(1, 'tools/call', { name: 'list_users', _meta: META })) as {
      result: Record<string, unknown>;
    };
    expect(call.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: USERS_JSON }],
      structuredContent: USERS,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'structured-fixture', version: '1.0.0' } },
    });
  });

  it('returns a string, adding its JSON as text when the tool gave no text block', async () => {
    await using wire = new RawWire(FIXTURE);
    const call = (await wire.call(1, 'tools/call', { name: 'greeting', _meta: META })) as {
      result: { content: Array<{ type: string; text?: string }>; structuredContent: unknown };
    };
    expect(call.result.structuredContent).toBe('hello');
    expect(call.result.content.map((b) => b.type)).toEqual(['image', 'text']);
    expect(call.result.content[1]).toEqual({ type: 'text', text: '"hello"' });
  });
});

describe('a 2025-11-25 client on the wire', () => {
  it('sees non-object schemas and values wrapped under result', async () => {
    await using wire = new RawWire(FIXTURE);
    await wire.initialize('2025-11-25');
    const list = (await wire.call(1, 'tools/list', {})) as {
      result: { tools: Array<{ name: string; outputSchema?: unknown }> };
    };
    const users = list.result.tools.find((t) => t.name === 'list_users');
    expect(users?.outputSchema).toEqual(wrapped(USERS_SCHEMA));
    expect(await wire.call(2, 'tools/call', { name: 'list_users' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: USERS_JSON }], structuredContent: { result: USERS } },
    });
  });
});

describeMatrix('structured output that is not an object', (connect) => {
  const connectTo = (protocolVersion: '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05') =>
    connect({ fixture: FIXTURE, protocolVersion });

  it.each(['2025-11-25', '2025-06-18'] as const)(
    'wraps schema and value for a %s client, and the value validates against the listed schema',
    async (version) => {
      await using c = await connectTo(version);
      const tools = await c.client.listTools();
      const schemaOf = (name: string) => tools.find((t) => t.name === name)?.outputSchema;
      expect(schemaOf('list_users')).toEqual(wrapped(USERS_SCHEMA));
      expect(schemaOf('greeting')).toEqual(wrapped(GREETING_SCHEMA));
      // the root $ref moves under the wrapper, so the recursion still resolves
      expect(schemaOf('tree')).toEqual(
        wrapped({
          $ref: '#/properties/result/$defs/node',
          $defs: {
            node: {
              ...TREE_SCHEMA.$defs.node,
              properties: {
                ...TREE_SCHEMA.$defs.node.properties,
                children: { type: 'array', items: { $ref: '#/properties/result/$defs/node' } },
              },
            },
          },
        }),
      );

      // the client checks every result against the cached (wrapped) schema: these calls would throw
      const users = await c.client.callTool('list_users');
      expect(users).toEqual({
        content: [{ type: 'text', text: USERS_JSON }],
        structuredContent: { result: USERS },
      });
      const greeting = await c.client.callTool('greeting');
      expect(greeting.structuredContent).toEqual({ result: 'hello' });
      expect(greeting.content.at(-1)).toEqual({ type: 'text', text: '"hello"' });
      const tree = await c.client.callTool('tree');
      expect(tree.structuredContent).toEqual({ result: TREE });

      for (const [name, result] of [
        ['list_users', users],
        ['greeting', greeting],
        ['tree', tree],
      ] as const) {
        expect(compileJsonSchema(schemaOf(name)!)(result.structuredContent)).toMatchObject({ ok: true });
      }
      expect(compileJsonSchema(schemaOf('tree')!)({ result: { children: [] } })).toMatchObject({ ok: false });
    },
  );

  it.each(['2025-03-26', '2024-11-05'] as const)('gives a %s client the JSON text only', async (version) => {
    await using c = await connectTo(version);
    const tools = await c.client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    expect(await c.client.callTool('list_users')).toEqual({ content: [{ type: 'text', text: USERS_JSON }] });
    const greeting = await c.client.callTool('greeting');
    expect(greeting.structuredContent).toBeUndefined();
    expect(greeting.content.at(-1)).toEqual({ type: 'text', text: '"hello"' });
  });

  it('validates the unwrapped value against the tool’s own schema on the server', async () => {
    await using c = await connectTo('2025-11-25');
    const result = await c.client.callTool('bad_users');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    // the paths point into the value the tool returned, not into the wrapper
    expect((result.content[0] as { text: string }).text).toBe(
      "Tool bad_users returned structured content that does not match its outputSchema: /0 must have required property 'name'; /0/id must be string",
    );
  });
});

describe('an isError result whose structuredContent is not an object, of a tool with an object outputSchema', () => {
  function erringServer(): Server {
    const server = new Server({ name: 's', version: '1' });
    const outputSchema = { type: 'object', properties: { n: { type: 'number' } } } as const;
    server.tool('err_array', { outputSchema }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'failed' }],
      structuredContent: [1] as never,
    }));
    server.tool('err_string', { outputSchema }, () => ({
      isError: true,
      content: [],
      structuredContent: 'failed' as never,
    }));
    return server;
  }

  it.each(['2025-06-18', '2025-11-25'] as const)(
    'reaches a %s client wrapped under result',
    async (version) => {
      await using peer = await rawPeer(erringServer(), version);
      expect(await peer.result('tools/call', { name: 'err_array' })).toEqual({
        content: [{ type: 'text', text: 'failed' }],
        structuredContent: { result: [1] },
        isError: true,
      });
      expect(await peer.result('tools/call', { name: 'err_string' })).toEqual({
        content: [{ type: 'text', text: '"failed"' }],
        structuredContent: { result: 'failed' },
        isError: true,
      });
    },
  );

  it('reaches a 2026-07-28 client as it is', async () => {
    await using peer = await rawPeer(erringServer(), '2026-07-28');
    expect(await peer.result('tools/call', { name: 'err_array' })).toMatchObject({
      structuredContent: [1],
      isError: true,
    });
  });
});
