import { describe, it, expect, expectTypeOf } from 'vitest';
import { z } from 'zod';
import { resolveSchema, type InferSchema, type ResolvedSchema } from './schema-input.js';
import { SchemaError } from './schema-error.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { ValidationOutcome } from './compile.js';
import type { JsonSchema } from './json-schema.js';

function thrown(fn: () => unknown): SchemaError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error('expected a SchemaError');
}

describe('resolveSchema with a plain JSON Schema', () => {
  const schema = {
    type: 'object',
    properties: { a: { type: 'number' } },
    required: ['a'],
  } as const;

  it('puts the JSON Schema on the wire and validates synchronously', () => {
    const resolved = resolveSchema(schema, 'input');
    expect(resolved.json).toEqual(schema);
    expect(resolved.validateSync).toBeTypeOf('function');
    expect(resolved.validate({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    expect(resolved.validateSync?.({ a: 'x' })).toEqual({
      ok: false,
      issues: [{ path: '/a', message: 'must be number' }],
    });
  });

  it('keeps the wire JSON independent of later edits to the caller object', () => {
    const mutable: Record<string, unknown> = { type: 'object' };
    const resolved = resolveSchema(mutable, 'output');
    mutable.type = 'string';
    expect(resolved.json).toEqual({ type: 'object' });
  });

  it('fails at resolution time for a bad schema', () => {
    expect(thrown(() => resolveSchema({ type: 'nope' }, 'input')).code).toBe('INVALID_SCHEMA');
    expect(
      thrown(() => resolveSchema({ $schema: 'https://json-schema.org/draft/2099/schema' }, 'input')).code,
    ).toBe('UNSUPPORTED_SCHEMA_DIALECT');
  });

  it('rejects a value that is neither a JSON Schema nor a Standard Schema', () => {
    const error = thrown(() => resolveSchema(new Map() as unknown as Record<string, unknown>, 'input'));
    expect(error.code).toBe('INVALID_SCHEMA');
  });

  it('infers the value type from an as-const schema', () => {
    const resolved = resolveSchema(schema, 'input');
    expectTypeOf(resolved).toEqualTypeOf<ResolvedSchema<{ a: number; [key: string]: unknown }>>();
  });
});

describe('resolveSchema with a zod v4 schema', () => {
  const user = z.object({
    name: z.string(),
    email: z.email().optional(),
    tags: z.array(z.string()),
  });

  it('produces 2020-12 JSON Schema exactly as zod does', () => {
    const resolved = resolveSchema(user, 'input');
    expect(resolved.json).toEqual(user['~standard'].jsonSchema.input({ target: 'draft-2020-12' }));
    expect(resolved.json).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      required: ['name', 'tags'],
    });
    expect(resolved.validateSync).toBeUndefined();
  });

  it('validates with zod and reports issues with JSON pointer paths', async () => {
    const resolved = resolveSchema(user, 'input');
    const outcome = await resolved.validate({ name: 1, email: 'bad', tags: ['ok', 2] });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues.map((issue) => issue.path)).toEqual(['/name', '/email', '/tags/1']);
    expect(outcome.issues[0]?.message).toMatch(/expected string/);
  });

  it('returns the parsed input value', async () => {
    const trimmed = z.object({ n: z.coerce.number() });
    const outcome = await resolveSchema(trimmed, 'input').validate({ n: '5' });
    expect(outcome).toEqual({ ok: true, value: { n: 5 } });
  });

  it('checks output against the JSON Schema it publishes, then zod, and keeps the value as given', async () => {
    const resolved = resolveSchema(
      z.object({ n: z.coerce.number().refine((n) => n > 0, 'positive') }),
      'output',
    );
    expect(await resolved.validate({ n: '5' })).toEqual({
      ok: false,
      issues: [{ path: '/n', message: 'must be number' }],
    });
    expect(await resolved.validate({ n: 5, extra: 1 })).toMatchObject({ ok: false });
    expect(await resolved.validate({ n: -1 })).toEqual({
      ok: false,
      issues: [{ path: '/n', message: 'positive' }],
    });
    const value = { n: 5 };
    const outcome = await resolved.validate(value);
    expect(outcome).toEqual({ ok: true, value });
    expect(outcome.ok && outcome.value).toBe(value);
  });

  it('resolves asynchronous validation', async () => {
    const checked = z.object({ code: z.string().refine(async (code) => code === 'ok', 'bad code') });
    const resolved = resolveSchema(checked, 'input');
    const pending = resolved.validate({ code: 'no' });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ ok: false, issues: [{ path: '/code', message: 'bad code' }] });
    expect(await resolved.validate({ code: 'ok' })).toEqual({ ok: true, value: { code: 'ok' } });
  });

  it('fails when zod cannot represent the output schema as JSON Schema', () => {
    const transformed = z.object({ n: z.string().transform((s) => s.length) });
    const error = thrown(() => resolveSchema(transformed, 'output'));
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toContain('Transforms cannot be represented');
  });

  it('infers the output type of the zod schema', () => {
    const resolved = resolveSchema(user, 'input');
    expectTypeOf(resolved).toEqualTypeOf<ResolvedSchema<z.output<typeof user>>>();
    expectTypeOf<InferSchema<typeof user>>().toEqualTypeOf<{
      name: string;
      email?: string | undefined;
      tags: string[];
    }>();
  });
});

describe('resolveSchema with another Standard Schema', () => {
  function standard(
    validate: StandardSchemaV1['~standard']['validate'],
    jsonSchema?: StandardSchemaV1['~standard']['jsonSchema'],
  ): StandardSchemaV1 {
    return { '~standard': { version: 1, vendor: 'test', validate, jsonSchema } };
  }

  it('refuses a Standard Schema that cannot produce JSON Schema', () => {
    const error = thrown(() =>
      resolveSchema(
        standard(() => ({ value: 1 })),
        'input',
      ),
    );
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toContain('cannot produce JSON Schema; pass a JSON Schema or a zod v4 schema');
  });

  it('converts path segment objects, numbers and symbols into a JSON pointer', async () => {
    const schema = standard(
      async () => ({
        issues: [{ message: 'bad', path: [{ key: 'a/b' }, 0, Symbol('s')] }, { message: 'root' }],
      }),
      { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
    );
    const outcome: ValidationOutcome<unknown> = await resolveSchema(schema, 'input').validate({});
    expect(outcome).toEqual({
      ok: false,
      issues: [
        { path: '/a~1b/0/s', message: 'bad' },
        { path: '', message: 'root' },
      ],
    });
  });

  it('asks the converter for the requested side with the 2020-12 target', () => {
    const calls: string[] = [];
    const schema = standard(() => ({ value: 1 }), {
      input: (options) => (calls.push(`input:${options.target}`), { type: 'object', title: 'in' }),
      output: (options) => (calls.push(`output:${options.target}`), { type: 'object', title: 'out' }),
    });
    expect(resolveSchema(schema, 'output').json).toEqual({ type: 'object', title: 'out' });
    expect(calls).toEqual(['output:draft-2020-12']);
  });
});

describe('zod JSON Schema on the other end of the wire', () => {
  it('compiles as a plain JSON Schema and agrees with zod', async () => {
    const schema = z.object({ email: z.email(), count: z.int().min(1), tags: z.array(z.string()).max(2) });
    const server = resolveSchema(schema, 'input');
    // zod hangs a non-enumerable `~standard` on its JSON output; the wire only carries the JSON text.
    const client = resolveSchema(JSON.parse(JSON.stringify(server.json)) as JsonSchema, 'input');
    for (const value of [
      { email: 'a@example.com', count: 1, tags: [] },
      { email: 'nope', count: 1, tags: [] },
      { email: 'a@example.com', count: 0, tags: ['a', 'b', 'c'] },
      { email: 'a@example.com', count: 1.5, tags: [] },
    ]) {
      const expected = (await server.validate(value)).ok;
      expect(client.validateSync?.(value).ok).toBe(expected);
    }
  });
});
