import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Server } from './server.js';
import { ServerError } from './server-error.js';
import { SchemaError } from './index.js';
import { text } from './results.js';
import type { ToolContext } from './tool-context.js';
import { serverCore } from './server.js';

const server = () => new Server({ name: 's', version: '1' });

describe('Server.tool registration', () => {
  it.each(['', 'has space', 'comma,name', 'x'.repeat(129), 'emoji🙂'])(
    'rejects the invalid tool name %j',
    (name) => {
      expect(() => server().tool(name, {}, () => 'x')).toThrow(ServerError);
    },
  );

  it.each(['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a-b', 'x'.repeat(128)])(
    'accepts the tool name %j',
    (name) => {
      expect(server().tool(name, {}, () => 'x').name).toBe(name);
    },
  );

  it('rejects a duplicate name with a clear error', () => {
    const s = server();
    s.tool('dup', {}, () => 'x');
    expect(() => s.tool('dup', {}, () => 'y')).toThrow(/already registered/);
  });

  it('rejects an inputSchema whose root is not an object with a SchemaError', () => {
    const register = () => server().tool('t', { inputSchema: { type: 'string' } }, () => 'x');
    expect(register).toThrow(SchemaError);
    expect(register).toThrow(/must describe an object/);
  });

  it('rejects an unsupported JSON Schema dialect at registration', () => {
    const inputSchema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' };
    expect(() => server().tool('t', { inputSchema }, () => 'x')).toThrow(
      expect.objectContaining({ name: 'SchemaError', code: 'UNSUPPORTED_SCHEMA_DIALECT' }),
    );
  });

  it('rejects a schema that does not compile', () => {
    expect(() =>
      server().tool('t', { inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } }, () => 'x'),
    ).toThrow(expect.objectContaining({ name: 'SchemaError', code: 'INVALID_SCHEMA' }));
  });

  it('defaults the inputSchema of a tool without parameters to an empty closed object', () => {
    const s = server();
    s.tool('t', {}, () => 'x');
    expect(serverCore(s).tools.get('t')?.tool.inputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
    });
  });

  it('turns a zod schema into 2020-12 JSON Schema on the wire', () => {
    const s = server();
    s.tool('t', { inputSchema: z.object({ a: z.number(), b: z.string().optional() }) }, () => 'x');
    expect(serverCore(s).tools.get('t')?.tool.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      required: ['a'],
    });
  });

  it('infers handler argument types from zod and from JSON Schema literals', () => {
    const s = server();
    s.tool('z', { inputSchema: z.object({ a: z.number(), tags: z.array(z.string()) }) }, (args, ctx) => {
      expectTypeOf(args).toEqualTypeOf<{ a: number; tags: string[] }>();
      expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
      return text(String(args.a));
    });
    const inputSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, count: { type: 'integer' } },
      required: ['name'],
      additionalProperties: false,
    } as const;
    s.tool('j', { inputSchema }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ name: string; count?: number }>();
      return args.name;
    });
    s.tool('none', {}, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, never>>();
      return 'x';
    });
  });
});

describe('tool handles', () => {
  it('disable, enable, update and remove change the listed tools and bump the version', () => {
    const s = server();
    const a = s.tool('a', { description: 'first' }, () => 'a');
    s.tool('b', {}, () => 'b');
    const names = () =>
      serverCore(s)
        .tools.list()
        .map((t) => t.name);
    const v0 = serverCore(s).tools.version;
    a.disable();
    expect(names()).toEqual(['b']);
    expect(a.enabled).toBe(false);
    a.enable();
    expect(names()).toEqual(['a', 'b']);
    a.update({ description: 'second' });
    expect(serverCore(s).tools.get('a')?.tool.description).toBe('second');
    a.remove();
    expect(names()).toEqual(['b']);
    expect(a.removed).toBe(true);
    expect(serverCore(s).tools.version).toBe(v0 + 4);
    expect(() => a.enable()).toThrow(/removed/);
  });

  it('keeps the old definition when an update does not compile', () => {
    const s = server();
    const a = s.tool('a', { inputSchema: { type: 'object' } }, () => 'a');
    expect(() => a.update({ inputSchema: { type: 'string' } })).toThrow(SchemaError);
    expect(serverCore(s).tools.get('a')?.tool.inputSchema).toEqual({ type: 'object' });
  });

  it('shares one immutable snapshot until the next change', () => {
    const s = server();
    s.tool('a', {}, () => 'a');
    const first = serverCore(s).tools.list();
    expect(serverCore(s).tools.list()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    s.tool('b', {}, () => 'b');
    expect(serverCore(s).tools.list()).not.toBe(first);
  });
});
