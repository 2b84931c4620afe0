import { describe, it, expect } from 'vitest';
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import { SchemaError } from './schema-error.js';

describe('SchemaError', () => {
  it('is a ToolwireError named SchemaError with its code, details and cause', () => {
    const cause = new Error('ajv said no');
    const error = new SchemaError(LocalErrorCode.InvalidSchema, 'bad schema', {
      cause,
      details: { at: '/a' },
    });
    expect(error).toBeInstanceOf(ToolwireError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SchemaError');
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({
      name: 'SchemaError',
      code: 'INVALID_SCHEMA',
      message: 'bad schema',
      details: { at: '/a' },
    });
  });

  it('carries UNSUPPORTED_SCHEMA_DIALECT', () => {
    expect(new SchemaError(LocalErrorCode.UnsupportedSchemaDialect, 'x').code).toBe(
      'UNSUPPORTED_SCHEMA_DIALECT',
    );
  });
});
