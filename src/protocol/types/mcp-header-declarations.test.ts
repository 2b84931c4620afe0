import { describe, expect, it } from 'vitest';
import { scanMcpHeaderDeclarations, validateMcpHeaderDeclarations } from './mcp-header-declarations.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('scanMcpHeaderDeclarations', () => {
  it('finds declarations reachable through properties, nested ones included', () => {
    const schema = object({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      limits: object({ max: { type: 'integer', 'x-mcp-header': 'Max' } }),
      dry: { type: 'boolean', 'x-mcp-header': "Dry-Run!#$%&'*+.^_`|~" },
    });
    expect(scanMcpHeaderDeclarations(schema)).toEqual({
      declarations: [
        { header: 'Region', path: ['region'], type: 'string' },
        { header: 'Max', path: ['limits', 'max'], type: 'integer' },
        { header: "Dry-Run!#$%&'*+.^_`|~", path: ['dry'], type: 'boolean' },
      ],
      problems: [],
    });
  });

  it.each([
    ['an empty value', object({ a: { type: 'string', 'x-mcp-header': '' } })],
    ['a value that is not a token', object({ a: { type: 'string', 'x-mcp-header': 'a b' } })],
    ['a value with CR LF', object({ a: { type: 'string', 'x-mcp-header': 'A\r\nB' } })],
    ['a value that is not a string', object({ a: { type: 'string', 'x-mcp-header': 1 } })],
    ['a number property', object({ a: { type: 'number', 'x-mcp-header': 'A' } })],
    ['an untyped property', object({ a: { 'x-mcp-header': 'A' } })],
    ['a type list', object({ a: { type: ['string', 'null'], 'x-mcp-header': 'A' } })],
    ['the root', { type: 'object', 'x-mcp-header': 'Root' }],
    [
      'two names equal but for case',
      object({ a: { type: 'string', 'x-mcp-header': 'Id' }, b: { type: 'string', 'x-mcp-header': 'ID' } }),
    ],
    ['items', object({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } })],
    ['oneOf', object({}, { oneOf: [object({ a: { type: 'string', 'x-mcp-header': 'A' } })] })],
    ['if/then', object({}, { if: {}, then: object({ a: { type: 'string', 'x-mcp-header': 'A' } }) })],
    [
      '$defs (a $ref target)',
      object({ a: { $ref: '#/$defs/s' } }, { $defs: { s: { type: 'string', 'x-mcp-header': 'A' } } }),
    ],
    ['additionalProperties', object({}, { additionalProperties: { type: 'string', 'x-mcp-header': 'A' } })],
  ])('refuses %s', (_, schema) => {
    expect(validateMcpHeaderDeclarations(schema)).not.toEqual([]);
  });

  it('accepts a schema without declarations, or no schema at all', () => {
    expect(validateMcpHeaderDeclarations(object({ a: { type: 'number' } }))).toEqual([]);
    expect(validateMcpHeaderDeclarations(undefined)).toEqual([]);
  });
});
