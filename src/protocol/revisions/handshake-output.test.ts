import { describe, expect, it } from 'vitest';
import { compileJsonSchema } from '../../schema/index.js';
import type { WireSchema } from '../types/tools.js';
import { wrapOutputSchema, wrapOutputValue, wrapsOutput } from './handshake-output.js';

const wrapper = (inner: unknown) => ({ type: 'object', properties: { result: inner }, required: ['result'] });

/** The wrapped schema accepts `{ result: v }` exactly when the schema accepts `v`. */
function expectSameVerdicts(schema: WireSchema, values: unknown[]): void {
  const original = compileJsonSchema(schema);
  const wrapped = compileJsonSchema(wrapOutputSchema(schema));
  for (const value of values) {
    expect(wrapped(wrapOutputValue(value)).ok, JSON.stringify(value)).toBe(original(value).ok);
  }
}

describe('wrapsOutput', () => {
  it('wraps a tool whose outputSchema root is not type object, whatever the value', () => {
    expect(wrapsOutput({ type: 'object' }, {})).toBe(false);
    expect(wrapsOutput({ type: 'array' }, [])).toBe(true);
    expect(wrapsOutput({ type: ['object', 'null'] }, {})).toBe(true);
    expect(wrapsOutput({ anyOf: [{ type: 'object' }, { type: 'array' }] }, { a: 1 })).toBe(true);
    expect(wrapsOutput({}, {})).toBe(true);
  });

  it('wraps the values that are not objects when the tool has no outputSchema', () => {
    expect(wrapsOutput(undefined, { a: 1 })).toBe(false);
    for (const value of [[1], 'x', 3, true, null]) expect(wrapsOutput(undefined, value)).toBe(true);
  });
});

describe('wrapOutputSchema', () => {
  it('puts the schema under a required result property', () => {
    expect(wrapOutputSchema({ type: 'array', items: { type: 'string' } })).toEqual(
      wrapper({ type: 'array', items: { type: 'string' } }),
    );
    expect(wrapOutputValue([1])).toEqual({ result: [1] });
  });

  it('moves a root $schema to the wrapper', () => {
    const draft07 = 'http://json-schema.org/draft-07/schema#';
    expect(wrapOutputSchema({ $schema: draft07, type: 'string' })).toEqual({
      $schema: draft07,
      ...wrapper({ type: 'string' }),
    });
  });

  it('re-points same-document references, and only those', () => {
    const schema: WireSchema = {
      $ref: '#/$defs/list',
      $defs: {
        list: { type: 'array', items: { $ref: '#/$defs/item' } },
        item: { anyOf: [{ type: 'string' }, { $dynamicRef: '#' }, { $ref: '#item' }] },
      },
      properties: { $ref: { $ref: 'https://example.com/remote.json' } },
      const: { $ref: '#/not/a/reference' },
      enum: [{ $ref: '#' }],
      default: { $ref: '#' },
      examples: [{ $ref: '#' }],
    };
    expect(wrapOutputSchema(schema)).toEqual(
      wrapper({
        $ref: '#/properties/result/$defs/list',
        $defs: {
          list: { type: 'array', items: { $ref: '#/properties/result/$defs/item' } },
          item: {
            anyOf: [{ type: 'string' }, { $dynamicRef: '#/properties/result' }, { $ref: '#item' }],
          },
        },
        properties: { $ref: { $ref: 'https://example.com/remote.json' } },
        const: { $ref: '#/not/a/reference' },
        enum: [{ $ref: '#' }],
        default: { $ref: '#' },
        examples: [{ $ref: '#' }],
      }),
    );
  });

  it('leaves a schema resource with its own $id as it is', () => {
    const own = { $id: 'https://example.com/node', type: 'array', items: { $ref: '#/$defs/x' } };
    expect(wrapOutputSchema(own)).toEqual(wrapper(own));
    const nested = { type: 'array', items: own };
    expect(wrapOutputSchema(nested)).toEqual(wrapper(nested));
  });

  it('keeps every verdict of a recursive 2020-12 schema', () => {
    const tree: WireSchema = {
      $ref: '#/$defs/node',
      $defs: {
        node: {
          type: 'object',
          properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
          required: ['label'],
        },
      },
    };
    expectSameVerdicts(tree, [
      { label: 'a' },
      { label: 'a', children: [{ label: 'b', children: [] }] },
      { label: 'a', children: [{ children: [] }] },
      [],
      'a',
    ]);
  });

  it('keeps every verdict of a draft-07 schema with definitions', () => {
    const schema: WireSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: { $ref: '#/definitions/id' },
      definitions: { id: { type: 'string', pattern: '^u[0-9]+$' } },
    };
    expectSameVerdicts(schema, [['u1', 'u2'], ['x'], [1], {}, []]);
  });

  it('keeps every verdict of a 2019-09 $recursiveRef', () => {
    const schema: WireSchema = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      $recursiveAnchor: true,
      type: 'array',
      items: { anyOf: [{ type: 'integer' }, { $recursiveRef: '#' }] },
    };
    expectSameVerdicts(schema, [[1, [2, [3]]], [1, ['x']], 'x', []]);
  });

  it('keeps every verdict of primitives and compositions', () => {
    expectSameVerdicts({ type: 'string', minLength: 2 }, ['ab', 'a', 3, null]);
    expectSameVerdicts({ type: 'null' }, [null, 0]);
    expectSameVerdicts({ oneOf: [{ type: 'number' }, { type: 'boolean' }] }, [1, true, 'x']);
    expectSameVerdicts({}, [1, 'x', null, {}, []]);
  });
});
