// Refused credentials on the HTTP client transports (issue 5): a 401/403 with `WWW-Authenticate: Bearer …`
// becomes a TransportError carrying the parsed challenge, at once (no retry, no hang, no fallback), and
// never shows the token. A tiny node:http server answers every request with a fixed status.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport, TransportError } from '../src/transports/http-client/index.js';
import { parseWwwAuthenticate } from '../src/transports/http-client/www-authenticate.js';

async function refusing(status: number, challenge: string) {
  const seen: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(status, { 'www-authenticate': challenge, 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'nope' }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    seen,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe('WWW-Authenticate', () => {
  it('parses several challenges, quoted strings with escapes, and a token68', () => {
    expect(
      parseWwwAuthenticate(
        'Basic realm="a \\"b\\"", Bearer error="invalid_token", error_description="The token expired", scope="files:read files:write", resource_metadata="https://x.test/.well-known/oauth-protected-resource", Other abc123==',
      ),
    ).toEqual([
      { scheme: 'basic', params: { realm: 'a "b"' } },
      {
        scheme: 'bearer',
        params: {
          error: 'invalid_token',
          error_description: 'The token expired',
          scope: 'files:read files:write',
          resource_metadata: 'https://x.test/.well-known/oauth-protected-resource',
        },
      },
      { scheme: 'other', params: {}, token68: 'abc123==' },
    ]);
  });
});

describe('refused credentials', () => {
  it('a 401 fails connect at once with the challenge, sends the bearer token, and never shows it', async () => {
    await using server = await refusing(
      401,
      'Bearer error="invalid_token", error_description="expired", resource_metadata="https://rs.test/prm"',
    );
    let calls = 0;
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    const transport = new StreamableHttpClientTransport({
      url: server.url,
      bearer: () => `secret-token-${++calls}`,
    });
    const started = performance.now();
    const error = await client.connect(transport).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      details: {
        status: 401,
        error: 'invalid_token',
        errorDescription: 'expired',
        resourceMetadata: 'https://rs.test/prm',
      },
    });
    expect(String((error as Error).message)).toContain('invalid_token');
    expect(JSON.stringify(error)).not.toContain('secret-token');
    expect((error as Error).message).not.toContain('secret-token');
    // One request: the refused probe does not fall back to initialize.
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]?.authorization).toBe('Bearer secret-token-1');
  });

  it('a 403 insufficient_scope carries the scope to ask for', async () => {
    await using server = await refusing(403, 'Bearer error="insufficient_scope", scope="tools:call"');
    const client = new Client({ name: 'auth-test', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    const error = await client
      .connect(new StreamableHttpClientTransport({ url: server.url, bearer: 'tok' }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'FORBIDDEN',
      details: { status: 403, error: 'insufficient_scope', scope: 'tools:call' },
    });
    expect(server.seen).toHaveLength(1);
  });
});
