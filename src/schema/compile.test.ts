import { describe, it, expect } from 'vitest';
import { compileJsonSchema, formatIssues, type ValidationOutcome } from './compile.js';
import { SchemaError } from './schema-error.js';
import { ToolwireError } from '../protocol/errors.js';

function issuesOf(outcome: ValidationOutcome<unknown>) {
  if (outcome.ok) throw new Error('expected the value to be rejected');
  return outcome.issues;
}

function compileError(schema: Record<string, unknown>): SchemaError {
  try {
    compileJsonSchema(schema);
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error('expected compileJsonSchema to throw');
}

describe('compileJsonSchema', () => {
  it('accepts a valid value and returns it unchanged', () => {
    const validate = compileJsonSchema({ type: 'object', properties: { a: { type: 'number' } } });
    const value = { a: 1 };
    const outcome = validate(value);
    expect(outcome).toEqual({ ok: true, value });
    expect(outcome.ok && outcome.value).toBe(value);
  });

  it('reports every issue with a JSON pointer path', () => {
    const validate = compileJsonSchema({
      type: 'object',
      properties: { a: { type: 'number' }, list: { type: 'array', items: { type: 'string' } } },
      required: ['a', 'b'],
    });
    const issues = issuesOf(validate({ a: 'x', list: ['ok', 3] }));
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/a', message: 'must be number' },
        { path: '', message: "must have required property 'b'" },
        { path: '/list/1', message: 'must be string' },
      ]),
    );
    expect(issues).toHaveLength(3);
  });

  it('escapes "/" and "~" in property names of issue paths', () => {
    const validate = compileJsonSchema({ properties: { 'a/b~c': { type: 'number' } } });
    expect(issuesOf(validate({ 'a/b~c': 'x' }))).toEqual([{ path: '/a~1b~0c', message: 'must be number' }]);
  });

  it('names the unexpected property when additionalProperties is false', () => {
    const validate = compileJsonSchema({ type: 'object', properties: {}, additionalProperties: false });
    expect(issuesOf(validate({ extra: 1 }))).toEqual([
      { path: '', message: "must NOT have additional properties: 'extra'" },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    const validate = compileJsonSchema({ enum: ['a', 1] });
    expect(issuesOf(validate('z'))).toEqual([
      { path: '', message: 'must be equal to one of the allowed values: "a", 1' },
    ]);
  });

  it('ignores unknown keywords such as x-mcp-header', () => {
    const validate = compileJsonSchema({
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'X-Region' } },
      'x-vendor': true,
    });
    expect(validate({ region: 'eu' }).ok).toBe(true);
  });

  it('validates formats such as email and date-time', () => {
    const validate = compileJsonSchema({
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, at: { type: 'string', format: 'date-time' } },
    });
    expect(validate({ email: 'a@example.com', at: '2025-01-02T03:04:05Z' }).ok).toBe(true);
    expect(issuesOf(validate({ email: 'not-an-email', at: 'yesterday' }))).toEqual([
      { path: '/email', message: 'must match format "email"' },
      { path: '/at', message: 'must match format "date-time"' },
    ]);
  });

  it('validates a simple schema of each dialect alike (compiled on first use, without meta-schemas)', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
    ]) {
      const validate = compileJsonSchema({
        $schema,
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 }, tag: { enum: ['a', 'b'] } },
        required: ['n'],
        additionalProperties: false,
      });
      expect(validate({ n: 2, tag: 'a' })).toEqual({ ok: true, value: { n: 2, tag: 'a' } });
      expect(validate({ n: 0, tag: 'c', extra: 1 })).toEqual({
        ok: false,
        issues: [
          { path: '', message: "must NOT have additional properties: 'extra'" },
          { path: '/n', message: 'must be >= 1' },
          { path: '/tag', message: 'must be equal to one of the allowed values: "a", "b"' },
        ],
      });
    }
  });

  it('ignores an unknown format instead of failing', () => {
    expect(compileJsonSchema({ type: 'string', format: 'x-unknown' })('anything').ok).toBe(true);
  });

  it('resolves local $ref into $defs', () => {
    const validate = compileJsonSchema({
      $defs: { positive: { type: 'number', exclusiveMinimum: 0 } },
      type: 'object',
      properties: { n: { $ref: '#/$defs/positive' } },
    });
    expect(validate({ n: 2 }).ok).toBe(true);
    expect(issuesOf(validate({ n: -1 }))).toEqual([{ path: '/n', message: 'must be > 0' }]);
  });

  it('supports recursive schemas', () => {
    const validate = compileJsonSchema({
      $id: 'https://example.com/tree',
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: 'https://example.com/tree' } } },
      additionalProperties: false,
    });
    expect(validate({ children: [{ children: [] }] }).ok).toBe(true);
    expect(issuesOf(validate({ children: [{ extra: 1 }] }))[0]?.path).toBe('/children/0');
  });
});

describe('compileJsonSchema dialects', () => {
  const draft07 = 'http://json-schema.org/draft-07/schema#';

  it('uses 2020-12 by default: prefixItems constrains tuple items', () => {
    const validate = compileJsonSchema({ type: 'array', prefixItems: [{ type: 'number' }] });
    expect(issuesOf(validate(['x']))).toEqual([{ path: '/0', message: 'must be number' }]);
  });

  it('ignores prefixItems under draft-07', () => {
    const validate = compileJsonSchema({
      $schema: draft07,
      type: 'array',
      prefixItems: [{ type: 'number' }],
    });
    expect(validate(['x']).ok).toBe(true);
  });

  it('treats an items array as a tuple under draft-07', () => {
    const validate = compileJsonSchema({ $schema: draft07, type: 'array', items: [{ type: 'number' }] });
    expect(validate([1, 'anything']).ok).toBe(true);
    expect(issuesOf(validate(['x']))).toEqual([{ path: '/0', message: 'must be number' }]);
  });

  it('rejects an items array under 2020-12, where items must be a schema', () => {
    const error = compileError({ type: 'array', items: [{ type: 'number' }] });
    expect(error.code).toBe('INVALID_SCHEMA');
  });

  it('enforces dependentRequired under 2020-12 and 2019-09 but not draft-07', () => {
    const schema = { type: 'object', dependentRequired: { card: ['billing'] } };
    expect(compileJsonSchema(schema)({ card: 1 }).ok).toBe(false);
    expect(
      compileJsonSchema({ ...schema, $schema: 'https://json-schema.org/draft/2019-09/schema' })({ card: 1 })
        .ok,
    ).toBe(false);
    expect(compileJsonSchema({ ...schema, $schema: draft07 })({ card: 1 }).ok).toBe(true);
  });

  it.each([
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema#',
    'https://json-schema.org/draft-07/schema',
  ])('accepts the draft-07 URI spelled %s', ($schema) => {
    const validate = compileJsonSchema({ $schema, type: 'array', items: [{ type: 'number' }] });
    expect(validate(['x']).ok).toBe(false);
  });

  it.each([
    'https://json-schema.org/draft/2020-12/schema',
    'https://json-schema.org/draft/2020-12/schema#',
    'http://json-schema.org/draft/2020-12/schema',
  ])('accepts the 2020-12 URI spelled %s', ($schema) => {
    expect(compileJsonSchema({ $schema, type: 'string' })(1).ok).toBe(false);
  });

  it('rejects a schema whose $schema names an unsupported dialect', () => {
    const error = compileError({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' });
    expect(error).toBeInstanceOf(SchemaError);
    expect(error).toBeInstanceOf(ToolwireError);
    expect(error.name).toBe('SchemaError');
    expect(error.code).toBe('UNSUPPORTED_SCHEMA_DIALECT');
    expect(error.message).toContain('http://json-schema.org/draft-04/schema#');
    expect(error.message).toContain('https://json-schema.org/draft/2020-12/schema');
    expect(error.message).toContain('http://json-schema.org/draft-07/schema#');
  });

  it('rejects a $schema that is not a string', () => {
    expect(compileError({ $schema: 7 }).code).toBe('INVALID_SCHEMA');
  });
});

describe('compileJsonSchema safety', () => {
  it('rejects a $ref to a remote URI instead of fetching it', () => {
    const error = compileError({ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } });
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toContain('https://example.com/s.json');
  });

  it('rejects a relative $ref that resolves outside the schema', () => {
    const error = compileError({ $id: 'https://example.com/root.json', $ref: 'other.json' });
    expect(error.code).toBe('INVALID_SCHEMA');
  });

  it('rejects a schema ajv cannot compile with ajv message', () => {
    const error = compileError({ type: 'strin' });
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toMatch(/^invalid JSON Schema: schema is invalid/);
  });

  it('rejects a schema that is not a plain object', () => {
    expect(compileError([] as unknown as Record<string, unknown>).code).toBe('INVALID_SCHEMA');
  });

  it('rejects a schema nested deeper than 64 levels before compiling', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
    const error = compileError(deep);
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toContain('deeper than 64');
  });

  it('rejects a schema with more than 10,000 nodes', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 10_001; i++) properties[`p${i}`] = { type: 'string' };
    expect(compileError({ type: 'object', properties }).message).toContain('more than 10000 nodes');
  });

  it('rejects $async schemas, whose validators would return a Promise', () => {
    expect(compileError({ $async: true, type: 'string' }).code).toBe('INVALID_SCHEMA');
  });
});

describe('compileJsonSchema caching and isolation', () => {
  it('returns the same validator for the same schema object', () => {
    const schema = { type: 'object', properties: { cached: { type: 'boolean' } } };
    expect(compileJsonSchema(schema)).toBe(compileJsonSchema(schema));
  });

  it('returns the same validator for an equal schema with the same JSON text', () => {
    const make = () => ({ type: 'object', properties: { sameText: { type: 'integer' } } });
    expect(compileJsonSchema(make())).toBe(compileJsonSchema(make()));
  });

  it('does not mutate the caller schema', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft-07/schema',
      $id: 'https://example.com/untouched',
      type: 'object',
      properties: { a: { type: 'string', default: 'x' } },
    };
    const before = structuredClone(schema);
    compileJsonSchema(schema);
    expect(schema).toEqual(before);
    expect(Object.isFrozen(schema)).toBe(false);
  });

  it('compiles two different schemas that share an $id', () => {
    const first = compileJsonSchema({ $id: 'https://example.com/shared', type: 'string' });
    const second = compileJsonSchema({ $id: 'https://example.com/shared', type: 'number' });
    expect(first('x').ok).toBe(true);
    expect(first(1).ok).toBe(false);
    expect(second(1).ok).toBe(true);
    expect(second('x').ok).toBe(false);
  });

  it('compiles two different schemas that share a nested $id', () => {
    const make = (type: string) => ({
      properties: { a: { $ref: 'https://example.com/nested' } },
      $defs: { inner: { $id: 'https://example.com/nested', type } },
    });
    expect(compileJsonSchema(make('string'))({ a: 'x' }).ok).toBe(true);
    expect(compileJsonSchema(make('number'))({ a: 'x' }).ok).toBe(false);
  });

  it('does not let a later schema $ref an $id registered by an earlier one', () => {
    compileJsonSchema({ $id: 'https://example.com/registered', type: 'string' });
    expect(compileError({ $ref: 'https://example.com/registered' }).code).toBe('INVALID_SCHEMA');
  });

  it('keeps validators working after many compilations', () => {
    const first = compileJsonSchema({ type: 'string', minLength: 3 });
    for (let i = 0; i < 1200; i++) compileJsonSchema({ type: 'string', maxLength: i });
    expect(first('abcd').ok).toBe(true);
    expect(first('ab').ok).toBe(false);
  });
});

describe('formatIssues', () => {
  it('joins issues on one line, path first when there is one', () => {
    expect(
      formatIssues([
        { path: '/a', message: 'must be number' },
        { path: '', message: "must have required property 'b'" },
      ]),
    ).toBe("/a must be number; must have required property 'b'");
  });

  it('caps the number of issues listed', () => {
    const issues = Array.from({ length: 5 }, (_, i) => ({ path: `/${i}`, message: 'must be string' }));
    expect(formatIssues(issues, 2)).toBe('/0 must be string; /1 must be string; (and 3 more)');
  });

  it('returns an empty string for no issues', () => {
    expect(formatIssues([])).toBe('');
  });
});

describe('compileJsonSchema patterns (linear time)', () => {
  it('validates a catastrophic pattern against a 31-byte string at once', () => {
    const validate = compileJsonSchema({ type: 'string', pattern: '^(a+)+$' });
    const started = performance.now();
    expect(issuesOf(validate(`${'a'.repeat(30)}!`))).toEqual([
      { path: '', message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(validate('a'.repeat(31)).ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('validates patternProperties keys in linear time', () => {
    const validate = compileJsonSchema({
      type: 'object',
      patternProperties: { '^(a|aa)+$': { type: 'number' } },
      additionalProperties: false,
    });
    const started = performance.now();
    expect(validate({ aaaa: 1 }).ok).toBe(true);
    expect(validate({ [`${'a'.repeat(40)}!`]: 1 }).ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('refuses a pattern with a backreference, naming the pattern and where it is', () => {
    const error = compileError({
      type: 'object',
      properties: { word: { type: 'string', pattern: '^(a)\\1$' } },
    });
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toBe(
      'invalid JSON Schema: the pattern "^(a)\\\\1$" at /properties/word/pattern cannot be used: backreferences ' +
        '(\\1) are not supported (patterns run in linear time, without backreferences or lookaround)',
    );
    expect(error.details).toEqual({
      pattern: '^(a)\\1$',
      path: '/properties/word/pattern',
      reason: 'backreferences (\\1) are not supported',
    });
  });

  it('refuses lookaround in patternProperties, naming the key', () => {
    const error = compileError({ patternProperties: { '^(?!x)': {} } });
    expect(error.message).toContain(
      'the pattern "^(?!x)" at /patternProperties/^(?!x) cannot be used: lookahead',
    );
  });

  it('finds a pattern under a property named like a keyword, and not inside data', () => {
    const error = compileError({
      default: { pattern: 'a(?=b)' },
      properties: { const: { type: 'string', pattern: 'a(?=b)' } },
    });
    expect((error.details as { path: string }).path).toBe('/properties/const/pattern');
  });

  it('keeps the JavaScript meaning of \\u escapes, \\s and the dot', () => {
    const validate = compileJsonSchema({ type: 'string', pattern: '^[\\u0041-\\u005A]\\s.$' });
    expect(validate('A\u00a0x').ok).toBe(true);
    expect(validate('A \n').ok).toBe(false);
    expect(validate('a x').ok).toBe(false);
  });

  it('accepts for format "regex" the patterns it runs, checked without compiling them', () => {
    const validate = compileJsonSchema({ type: 'string', format: 'regex' });
    expect(validate('^(a+)+$').ok).toBe(true);
    expect(issuesOf(validate('(a)\\1'))).toEqual([{ path: '', message: 'must match format "regex"' }]);
    expect(validate('a(?<=b)').ok).toBe(false);
    expect(validate('[').ok).toBe(false);
  });
});

describe('compileJsonSchema bounds on values', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = [];
    for (let i = 1; i < levels; i++) value = [value];
    return value;
  };

  it('refuses a value nested deeper than 64 levels before validating it (100,000 levels overflowed the stack)', () => {
    const validate = compileJsonSchema({
      $defs: { a: { type: 'array', items: { $ref: '#/$defs/a' } } },
      $ref: '#/$defs/a',
    });
    expect(validate(nested(64)).ok).toBe(true);
    expect(issuesOf(validate(nested(65)))).toEqual([
      { path: '', message: 'must NOT be nested deeper than 64 levels' },
    ]);
    expect(issuesOf(validate(nested(100_000)))).toEqual([
      { path: '', message: 'must NOT be nested deeper than 64 levels' },
    ]);
  });
});
