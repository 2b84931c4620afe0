import { describe, it, expect } from 'vitest';
import { SCHEMA_DIALECT_URIS, schemaDialect } from './dialect.js';
import { SchemaError } from './schema-error.js';

describe('schemaDialect', () => {
  it('defaults to 2020-12 when $schema is absent', () => {
    expect(schemaDialect({ type: 'object' })).toBe('draft-2020-12');
  });

  it.each([
    ['https://json-schema.org/draft/2020-12/schema', 'draft-2020-12'],
    ['http://json-schema.org/draft/2020-12/schema#', 'draft-2020-12'],
    ['https://json-schema.org/draft/2019-09/schema', 'draft-2019-09'],
    ['http://json-schema.org/draft-07/schema#', 'draft-07'],
    ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ])('reads %s as %s', ($schema, dialect) => {
    expect(schemaDialect({ $schema })).toBe(dialect);
  });

  it('recognizes its own canonical URIs', () => {
    for (const [dialect, uri] of Object.entries(SCHEMA_DIALECT_URIS)) {
      expect(schemaDialect({ $schema: uri })).toBe(dialect);
    }
  });

  it.each([
    'http://json-schema.org/draft-04/schema#',
    'http://json-schema.org/draft-06/schema#',
    'https://example.com/my-meta-schema',
    'https://json-schema.org/draft/2020-12/schema/extra',
  ])('rejects the unsupported dialect %s, naming it and the supported ones', ($schema) => {
    try {
      schemaDialect({ $schema });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).code).toBe('UNSUPPORTED_SCHEMA_DIALECT');
      expect((error as SchemaError).message).toContain(`"${$schema}"`);
      expect((error as SchemaError).message).toContain(
        'supported: https://json-schema.org/draft/2020-12/schema',
      );
      expect((error as SchemaError).details).toMatchObject({ dialect: $schema });
    }
  });

  it('rejects a $schema that is not a string as an invalid schema', () => {
    expect(() => schemaDialect({ $schema: { uri: 'x' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_SCHEMA' }),
    );
  });
});
