// A zod (Standard Schema) outputSchema: a result goes out as a success only when it conforms to the JSON
// Schema `tools/list` publishes for it (zod's own parsing would strip unknown keys, fill in defaults and
// coerce, and the value is sent as the handler gave it); anything else is an `isError` result and a bug
// report. Raw JSON-RPC over the in-memory pair, in both eras.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { compileJsonSchema, type JsonSchema } from '../src/schema/index.js';
import { SchemaError, Server } from '../src/server/index.js';
import { rawPeer } from './_raw-peer.js';

function zodServer(bugs: string[]): Server {
  const server = new Server({ name: 'zod-output', version: '1' }, { onToolBug: (m) => bugs.push(m) });
  server.tool('exact', { outputSchema: z.object({ sum: z.number() }) }, () => ({
    content: [],
    structuredContent: { sum: 3 },
  }));
  server.tool('extra_key', { outputSchema: z.object({ sum: z.number() }) }, () => ({
    content: [],
    structuredContent: { sum: 3, debug: 'internal' } as { sum: number },
  }));
  server.tool(
    'with_default',
    { outputSchema: z.object({ sum: z.number(), unit: z.string().default('m') }) },
    () => ({
      content: [],
      structuredContent: { sum: 3 } as { sum: number; unit: string },
    }),
  );
  server.tool('coerced', { outputSchema: z.object({ n: z.coerce.number() }) }, () => ({
    content: [],
    structuredContent: { n: '42' } as unknown as { n: number },
  }));
  server.tool(
    'refined',
    { outputSchema: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }) },
    () => ({
      content: [],
      structuredContent: { n: 3 },
    }),
  );
  return server;
}

describe.each(['2025-11-25', '2026-07-28'] as const)('a zod outputSchema (%s)', (version) => {
  it('sends a success only when it conforms to the listed outputSchema', async () => {
    const bugs: string[] = [];
    await using peer = await rawPeer(zodServer(bugs), version);
    const { tools } = (await peer.result('tools/list')) as {
      tools: Array<{ name: string; outputSchema: JsonSchema }>;
    };
    const listed = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
    const outcomes: Record<string, string> = {};
    for (const name of ['exact', 'extra_key', 'with_default', 'coerced', 'refined']) {
      const result = (await peer.result('tools/call', { name })) as JsonObject;
      if (result.isError === true) {
        outcomes[name] = 'isError';
        expect(result.structuredContent).toBeUndefined();
        continue;
      }
      expect(compileJsonSchema(listed.get(name)!)(result.structuredContent)).toMatchObject({ ok: true });
      outcomes[name] = JSON.stringify(result.structuredContent);
    }
    expect(outcomes).toEqual({
      exact: '{"sum":3}',
      extra_key: 'isError',
      with_default: 'isError',
      coerced: 'isError',
      refined: 'isError',
    });
    expect(bugs).toEqual([
      "Tool extra_key returned structured content that does not match its outputSchema: must NOT have additional properties: 'debug'",
      "Tool with_default returned structured content that does not match its outputSchema: must have required property 'unit'",
      'Tool coerced returned structured content that does not match its outputSchema: /n must be number',
      'Tool refined returned structured content that does not match its outputSchema: /n must be even',
    ]);
  });
});

describe('registering a zod outputSchema', () => {
  it('refuses one whose JSON Schema cannot be checked (a lookaround pattern), but not as input', () => {
    const server = new Server({ name: 'zod-output', version: '1' });
    const schema = z.object({ word: z.string().regex(/^(?!x).*$/) });
    expect(() => server.tool('in', { inputSchema: schema }, () => 'ok')).not.toThrow();
    const error = (() => {
      try {
        server.tool('out', { outputSchema: schema }, () => ({
          content: [],
          structuredContent: { word: 'a' },
        }));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).code).toBe('INVALID_SCHEMA');
    expect((error as SchemaError).message).toMatch(
      /^the output schema \(vendor "zod"\) produced a JSON Schema that results cannot be checked against: .*lookahead/,
    );
  });
});
