import { describe, it, expectTypeOf } from 'vitest';
import type { FromJsonSchema } from './infer.js';

/** The inferred type of a schema value, for `expectTypeOf` (the returned value is never used). */
const infer = <S>(_schema: S) => undefined as unknown as FromJsonSchema<S>;

describe('FromJsonSchema', () => {
  it('infers primitive types', () => {
    expectTypeOf<FromJsonSchema<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<FromJsonSchema<{ type: 'number' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromJsonSchema<{ type: 'integer' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromJsonSchema<{ type: 'boolean' }>>().toEqualTypeOf<boolean>();
    expectTypeOf<FromJsonSchema<{ type: 'null' }>>().toEqualTypeOf<null>();
  });

  it('infers a union from a type array', () => {
    const schema = { type: ['string', 'null'] } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<string | null>();
  });

  it('infers literal unions from enum and a literal from const', () => {
    const color = { type: 'string', enum: ['red', 'green'] } as const;
    expectTypeOf(infer(color)).toEqualTypeOf<'red' | 'green'>();
    expectTypeOf<FromJsonSchema<{ const: 42 }>>().toEqualTypeOf<42>();
  });

  it('makes required properties non-optional and others optional, with an index signature', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      required: ['a'],
    } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<{
      a: number;
      b?: string;
      [key: string]: unknown;
    }>();
  });

  it('drops the index signature when additionalProperties is false', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'boolean' } },
      required: ['a', 'b'],
      additionalProperties: false,
    } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<{ a: number; b: boolean }>();
  });

  it('keeps the index signature when additionalProperties is a schema', () => {
    const schema = { type: 'object', additionalProperties: { type: 'string' } } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<{ [key: string]: unknown }>();
  });

  it('infers arrays from items, and unknown[] without items', () => {
    const schema = { type: 'array', items: { type: 'string' } } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<string[]>();
    expectTypeOf<FromJsonSchema<{ type: 'array' }>>().toEqualTypeOf<unknown[]>();
  });

  it('infers nested objects and arrays of objects', () => {
    const schema = {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } } },
          required: ['tags'],
          additionalProperties: false,
        },
      },
      required: ['user'],
      additionalProperties: false,
    } as const;
    expectTypeOf(infer(schema)).toEqualTypeOf<{ user: { tags: string[] } }>();
  });

  it('infers unions from anyOf and oneOf', () => {
    const anyOf = { anyOf: [{ type: 'string' }, { type: 'number' }] } as const;
    const oneOf = { oneOf: [{ const: 'a' }, { type: 'boolean' }] } as const;
    expectTypeOf(infer(anyOf)).toEqualTypeOf<string | number>();
    expectTypeOf(infer(oneOf)).toEqualTypeOf<'a' | boolean>();
  });

  it('falls back to unknown', () => {
    expectTypeOf<FromJsonSchema<{ description: 'anything' }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<{ type: 'weird' }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromJsonSchema<{ [key: string]: unknown }>>().toEqualTypeOf<unknown>();
  });
});
