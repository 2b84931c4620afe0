import { describe, expect, it } from 'vitest';
import { TransportError } from '../../transport-error.js';
import { apiKeyVerifier, InvalidTokenError } from './token-verifier.js';

const request = new Request('https://mcp.example.com/mcp', { method: 'POST' });

describe('apiKeyVerifier', () => {
  const verifier = apiKeyVerifier({
    'key-ops-0123456789': { subject: 'ops', scopes: ['tools:call'], roles: ['admin'] },
    'key-ci-9876543210': { subject: 'ci' },
  });

  it('maps a known key to its principal (scopes default to none)', async () => {
    expect(await verifier('key-ops-0123456789', request)).toEqual({
      subject: 'ops',
      scopes: ['tools:call'],
      roles: ['admin'],
    });
    expect(await verifier('key-ci-9876543210', request)).toEqual({ subject: 'ci', scopes: [] });
  });

  it.each(['key-ops-012345678', 'key-ops-0123456789x', 'KEY-OPS-0123456789', '', 'constructor', '__proto__'])(
    'refuses %j as an unknown API key',
    async (key) => {
      const error: unknown = await verifier(key, request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error).toBeInstanceOf(TransportError);
      expect(error).toMatchObject({
        name: 'InvalidTokenError',
        code: 'INVALID_TOKEN',
        message: 'unknown API key',
      });
    },
  );

  it('asks a lookup function, which receives the key and the request', async () => {
    const seen: string[] = [];
    const lookup = apiKeyVerifier(async (key, req) => {
      seen.push(`${key} ${req.method}`);
      return key === 'good' ? { subject: 'db-user', scopes: ['a'] } : undefined;
    });
    expect(await lookup('good', request)).toEqual({ subject: 'db-user', scopes: ['a'] });
    await expect(lookup('bad', request)).rejects.toThrow(new InvalidTokenError('unknown API key'));
    expect(seen).toEqual(['good POST', 'bad POST']);
  });

  it('refuses an empty key or a key without a subject when built', () => {
    expect(() => apiKeyVerifier({ '': { subject: 'x' } })).toThrow(/empty/);
    expect(() => apiKeyVerifier({ k: { subject: '' } })).toThrow(/no subject/);
  });
});
