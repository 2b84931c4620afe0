import { describe, it, expect, expectTypeOf } from 'vitest';
import { z } from 'zod';
import {
  isStandardJsonSchema,
  isStandardSchema,
  type InferInput,
  type InferOutput,
  type StandardJsonSchemaV1,
  type StandardSchemaV1,
} from './standard-schema.js';

describe('isStandardSchema', () => {
  it('recognizes a zod v4 schema', () => {
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema(z.object({ a: z.number() }))).toBe(true);
  });

  it('recognizes a function carrying ~standard, as some libraries use', () => {
    const fn = Object.assign(() => undefined, {
      '~standard': { version: 1, vendor: 'fn', validate: (value: unknown) => ({ value }) },
    });
    expect(isStandardSchema(fn)).toBe(true);
  });

  it('rejects plain JSON Schemas, primitives and other versions', () => {
    expect(isStandardSchema({ type: 'object' })).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
    expect(isStandardSchema('~standard')).toBe(false);
    expect(
      isStandardSchema({ '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } }),
    ).toBe(false);
    expect(isStandardSchema({ '~standard': { version: 1, vendor: 'x' } })).toBe(false);
  });
});

describe('isStandardJsonSchema', () => {
  it('recognizes a zod v4 schema, which can produce JSON Schema', () => {
    expect(isStandardJsonSchema(z.object({ a: z.number() }))).toBe(true);
  });

  it('rejects a Standard Schema without jsonSchema', () => {
    expect(
      isStandardJsonSchema({ '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } }),
    ).toBe(false);
  });
});

describe('zod v4 against the inline Standard Schema types', () => {
  const schema = z.object({ n: z.string().transform((s) => s.length), tag: z.string().optional() });

  it('is assignable to both StandardSchemaV1 and StandardJsonSchemaV1', () => {
    expectTypeOf(schema).toExtend<StandardSchemaV1>();
    expectTypeOf(schema).toExtend<StandardJsonSchemaV1>();
  });

  it('infers the input and output types', () => {
    expectTypeOf<InferInput<typeof schema>>().toEqualTypeOf<{ n: string; tag?: string | undefined }>();
    expectTypeOf<InferOutput<typeof schema>>().toEqualTypeOf<{ n: number; tag?: string | undefined }>();
  });

  it('produces draft-2020-12 and draft-07 JSON Schema through ~standard.jsonSchema', () => {
    const plain = z.object({ a: z.number() });
    expect(plain['~standard'].jsonSchema.input({ target: 'draft-2020-12' })).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    });
    expect(plain['~standard'].jsonSchema.input({ target: 'draft-07' })).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
  });
});
