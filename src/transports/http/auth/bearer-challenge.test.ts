import { describe, expect, it } from 'vitest';
import { bearerChallenge, quotedString } from './bearer-challenge.js';

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('bearerChallenge', () => {
  it('points at the metadata and names the scopes (the spec’s 401)', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: ['files:read'] })).toBe(
      `Bearer resource_metadata="${PRM}", scope="files:read"`,
    );
  });

  it('adds the error and its description (the spec’s 403)', () => {
    expect(
      bearerChallenge({
        resourceMetadata: PRM,
        scope: 'files:read files:write',
        error: 'insufficient_scope',
        errorDescription: 'needs write',
      }),
    ).toBe(
      `Bearer resource_metadata="${PRM}", scope="files:read files:write", error="insufficient_scope", error_description="needs write"`,
    );
  });

  it('omits empty scopes, and a description without an error', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: [], errorDescription: 'x' })).toBe(
      `Bearer resource_metadata="${PRM}"`,
    );
    expect(bearerChallenge({})).toBe('Bearer');
  });

  it('escapes quotes and backslashes and drops control and non-ASCII characters', () => {
    expect(quotedString('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(quotedString('a\r\nb\u0000c\u007fd\u00e9e\u4e16')).toBe('"abcde"');
    const header = bearerChallenge({
      error: 'invalid_token',
      errorDescription: 'bad "token"\r\nSet-Cookie: x',
    });
    expect(header).toBe('Bearer error="invalid_token", error_description="bad \\"token\\"Set-Cookie: x"');
    expect(() => new Headers({ 'www-authenticate': header })).not.toThrow();
  });
});
