// Secret redaction (the default sanitization) runs after a result was checked against its outputSchema:
// redacted structuredContent is checked again, and a result that no longer conforms goes out as an
// `isError` result (reported through onToolBug, naming no secret), never as a non-conforming success.
// A redaction that still conforms goes out redacted, as before. Raw JSON-RPC over the in-memory pair.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { compileJsonSchema } from '../src/schema/index.js';
import { Server } from '../src/server/index.js';
import { rawPeer } from './_raw-peer.js';

const API_KEY = `sk_${'ab12'.repeat(8)}`;
const SESSION_TOKEN = 'x'.repeat(40);
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE' as const;

/** A tool that legitimately returns a generated key, with a precise outputSchema. */
const KEY_SCHEMA = {
  type: 'object',
  properties: {
    apiKey: { type: 'string', pattern: '^sk_[a-f0-9]{32}$' },
    sessionToken: { type: 'string', minLength: 32 },
    accessKey: { type: 'string', enum: [ACCESS_KEY, 'AKIAI44QH8DHBEXAMPLE'] },
  },
  required: ['apiKey', 'sessionToken', 'accessKey'],
} as const;

const LOOSE_SCHEMA = {
  type: 'object',
  properties: { user: { type: 'string' }, password: { type: 'string' } },
  required: ['user', 'password'],
} as const;

function keyServer(bugs: string[]): Server {
  const server = new Server({ name: 'keys', version: '1' }, { onToolBug: (m) => bugs.push(m) });
  server.tool('create_key', { outputSchema: KEY_SCHEMA }, () => ({
    content: [],
    structuredContent: { apiKey: API_KEY, sessionToken: SESSION_TOKEN, accessKey: ACCESS_KEY },
  }));
  server.tool('login', { outputSchema: LOOSE_SCHEMA }, () => ({
    content: [],
    structuredContent: { user: 'ada', password: 'hunter2' },
  }));
  return server;
}

describe.each(['2025-06-18', '2025-11-25', '2026-07-28'] as const)(
  'redacted structuredContent (%s)',
  (version) => {
    it('that breaks the outputSchema is an isError result, reported without the secret', async () => {
      const bugs: string[] = [];
      await using peer = await rawPeer(keyServer(bugs), version);
      const result = (await peer.result('tools/call', { name: 'create_key' })) as JsonObject;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      expect(text).toBe(
        'Tool create_key returned a secret-looking value that was redacted, and the redacted result no longer ' +
          'matches its outputSchema (at /apiKey, /sessionToken, /accessKey)',
      );
      expect(bugs).toEqual([text]);
      for (const secret of [API_KEY, SESSION_TOKEN, ACCESS_KEY])
        expect(JSON.stringify(result)).not.toContain(secret);
    });

    it('that still conforms goes out redacted', async () => {
      const bugs: string[] = [];
      await using peer = await rawPeer(keyServer(bugs), version);
      const { tools } = (await peer.result('tools/list')) as {
        tools: Array<{ name: string; outputSchema: JsonObject }>;
      };
      const result = (await peer.result('tools/call', { name: 'login' })) as JsonObject;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ user: 'ada', password: '[REDACTED]' });
      const listed = tools.find((tool) => tool.name === 'login')!.outputSchema;
      expect(compileJsonSchema(listed)(result.structuredContent)).toMatchObject({ ok: true });
      expect(bugs).toEqual([]);
    });
  },
);
