import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { compileJsonSchema } from './compile.js';
import { isPlainlyValid } from './plainly-valid.js';

const DIALECTS = [
  ['draft-07', new Ajv({ strict: false, logger: false })],
  ['2019-09', new Ajv2019({ strict: false, logger: false })],
  ['2020-12', new Ajv2020({ strict: false, logger: false })],
] as const;

const SIMPLE: Record<string, unknown>[] = [
  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for', minLength: 1, format: 'email' },
      limit: { type: 'integer', minimum: 1, maximum: 100, multipleOf: 1, default: 10 },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, uniqueItems: true, maxItems: 3 },
      nested: { type: ['object', 'null'], additionalProperties: false, 'x-mcp-header': 'X' },
    },
    additionalProperties: { type: 'number', exclusiveMinimum: 0 },
    title: 'T',
  },
  {},
];

const NOT_KNOWN: Record<string, unknown>[] = [
  { type: 'strin' },
  { type: [] },
  { type: ['string', 'string'] },
  { required: ['a', 'a'] },
  { required: 'a' },
  { minLength: -1 },
  { minLength: 1.5 },
  { multipleOf: 0 },
  { properties: { a: { type: 'nope' } } },
  { properties: [] },
  { enum: 'a' },
  { pattern: '^a' },
  { $ref: '#/$defs/a', $defs: { a: {} } },
  { anyOf: [{ type: 'string' }] },
  { items: [{ type: 'string' }] },
];

describe('isPlainlyValid', () => {
  it('accepts simple tool schemas, which every dialect meta-schema accepts too', () => {
    for (const schema of SIMPLE) {
      expect(isPlainlyValid(schema)).toBe(true);
      for (const [dialect, ajv] of DIALECTS) expect(ajv.validateSchema(schema), dialect).toBe(true);
    }
  });

  it('does not vouch for invalid schemas or keywords it does not check', () => {
    for (const schema of NOT_KNOWN) expect(isPlainlyValid(schema), JSON.stringify(schema)).toBe(false);
  });

  it('leaves invalid schemas to the meta-schema check, which still rejects them', () => {
    for (const schema of NOT_KNOWN.slice(0, 10)) {
      expect(() => compileJsonSchema(schema), JSON.stringify(schema)).toThrow(/schema is invalid/);
    }
  });
});
