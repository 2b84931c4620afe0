import { describe, it, expect } from 'vitest';
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_PATTERNS,
  assertSchemaBounds,
} from './schema-bounds.js';
import { SchemaError } from './schema-error.js';

function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { not: value };
  return value;
}

describe('assertSchemaBounds', () => {
  it('uses limits of 64 levels and 10,000 nodes', () => {
    expect(MAX_SCHEMA_DEPTH).toBe(64);
    expect(MAX_SCHEMA_NODES).toBe(10_000);
  });

  it('accepts a schema exactly 64 levels deep and rejects one 65 levels deep', () => {
    expect(() => assertSchemaBounds(nested(64))).not.toThrow();
    expect(() => assertSchemaBounds(nested(65))).toThrow(SchemaError);
  });

  it('counts arrays as levels and nodes', () => {
    expect(() => assertSchemaBounds({ anyOf: [{ anyOf: [{}] }] }, { maxDepth: 4 })).toThrow(/deeper than 4/);
    expect(() => assertSchemaBounds({ anyOf: [{}, {}] }, { maxNodes: 3 })).toThrow(/more than 3 nodes/);
    expect(() => assertSchemaBounds({ anyOf: [{}, {}] }, { maxNodes: 4 })).not.toThrow();
  });

  it('rejects a schema with more than 10,000 nodes with INVALID_SCHEMA', () => {
    const anyOf = Array.from({ length: MAX_SCHEMA_NODES }, () => ({ type: 'string' }));
    expect(() => assertSchemaBounds({ anyOf })).toThrow(expect.objectContaining({ code: 'INVALID_SCHEMA' }));
  });

  it('stops on a cyclic object instead of looping forever', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(() => assertSchemaBounds(cyclic)).toThrow(SchemaError);
  });

  it('stops on a shared subtree that would blow up exponentially', () => {
    let shared: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 30; i++) shared = { anyOf: [shared, shared] };
    expect(() => assertSchemaBounds(shared)).toThrow(/more than 10000 nodes/);
  });

  it('ignores primitive values', () => {
    expect(() => assertSchemaBounds(true)).not.toThrow();
    expect(() => assertSchemaBounds({ type: 'string', enum: ['a', 'b', 1, null] })).not.toThrow();
  });
});

describe('assertSchemaBounds, regular expressions', () => {
  const wide = (count: number) => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { pattern: `^a${i}` }])),
  });

  it('allows 256 and refuses 257 with INVALID_SCHEMA', () => {
    expect(MAX_SCHEMA_PATTERNS).toBe(256);
    expect(() => assertSchemaBounds(wide(256))).not.toThrow();
    expect(() => assertSchemaBounds(wide(257))).toThrow(/more than 256 regular expressions/);
  });

  it('counts patternProperties keys, and no property merely named pattern', () => {
    const keys = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`^k${i}`, {}]));
    expect(() => assertSchemaBounds({ patternProperties: keys, pattern: 'x' }, { maxPatterns: 3 })).toThrow(
      SchemaError,
    );
    expect(() =>
      assertSchemaBounds({ properties: { pattern: { type: 'string' } } }, { maxPatterns: 0 }),
    ).not.toThrow();
  });
});
