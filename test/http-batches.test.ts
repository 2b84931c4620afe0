// JSON-RPC batches over Streamable HTTP, per revision: 2025-03-26 has them (a receiver MUST accept them);
// 2024-11-05 never had them in MCP and 2025-06-18 removed them. The revision is the session's, or, on a
// stateless server, the MCP-Protocol-Version header's (2025-03-26 when absent). And the id of an error
// whose request id is unknown: null (JSON-RPC 2.0), omitted from 2025-11-25 on, whose schema makes it
// optional and never null.
import { describe, expect, it } from 'vitest';
import { apiKeyVerifier } from '../src/transports/http/index.js';
import { closeServedAfterEach, open, post, start } from './_http.js';

closeServedAfterEach();

const batch = [
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
];
const answers = [
  { jsonrpc: '2.0', id: 'a', result: {} },
  { jsonrpc: '2.0', id: 'b', result: { content: [{ type: 'text', text: 'b' }] } },
];

describe('JSON-RPC batches on a stateless server', () => {
  for (const responseMode of ['json', 'sse'] as const) {
    it(`refuses them at 2024-11-05, 2025-06-18 and 2025-11-25 with 400 and -32600 (${responseMode})`, async () => {
      const { url, handle } = await start({ stateless: true, responseMode });
      for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
        const response = await post(url, batch, { 'mcp-protocol-version': version });
        expect(response.status, version).toBe(400);
        const body = (await response.json()) as Record<string, unknown>;
        expect(body, version).toMatchObject({
          jsonrpc: '2.0',
          error: { code: -32600, message: `Invalid request: ${version} has no JSON-RPC batches` },
        });
        expect('id' in body, version).toBe(version !== '2025-11-25');
        if (version !== '2025-11-25') expect(body.id).toBeNull();
      }
      expect(handle.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
    });
  }

  it('serves them at 2025-03-26, named or by default', async () => {
    const { url } = await start({ stateless: true, responseMode: 'json' });
    const named: Record<string, string>[] = [{ 'mcp-protocol-version': '2025-03-26' }, {}];
    for (const headers of named) {
      const response = await post(url, batch, headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(answers);
    }
  });
});

describe('JSON-RPC batches in a session', () => {
  it('refuses them unless the session speaks 2025-03-26, the id shaped by its revision', async () => {
    const { url } = await start({ responseMode: 'json' });
    for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
      const sid = await open(url, version);
      const response = await post(url, batch, { 'mcp-session-id': sid }); // no version header: the session's
      expect(response.status, version).toBe(400);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body.error, version).toEqual({
        code: -32600,
        message: `Invalid request: ${version} has no JSON-RPC batches`,
      });
      expect('id' in body, version).toBe(version !== '2025-11-25');
    }
    const sid = await open(url, '2025-03-26');
    expect(await (await post(url, batch, { 'mcp-session-id': sid })).json()).toEqual(answers);
  });
});

describe('the id of an HTTP-level error', () => {
  it('is omitted at 2025-11-25 and 2026-07-28, null before and when no revision is known', async () => {
    const { url } = await start();
    const refusal = async (headers: Record<string, string>) =>
      (await (await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers)).json()) as Record<
        string,
        unknown
      >;
    const notAcceptable = { accept: 'application/json' };
    expect(await refusal({ ...notAcceptable, 'mcp-protocol-version': '2025-11-25' })).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Not Acceptable: Accept must list application/json and text/event-stream',
      },
    });
    expect(await refusal({ ...notAcceptable, 'mcp-protocol-version': '2026-07-28' })).not.toHaveProperty(
      'id',
    );
    expect(await refusal({ ...notAcceptable, 'mcp-protocol-version': '2025-06-18' })).toHaveProperty(
      'id',
      null,
    );
    expect(await refusal(notAcceptable)).toHaveProperty('id', null);
    // A session's own errors follow its revision.
    const sid = await open(url, '2025-11-25');
    const stream = () => fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
    const first = await stream();
    const conflict = await stream();
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).not.toHaveProperty('id');
    await first.body?.cancel();
    const missing = await refusal({ 'mcp-protocol-version': '2025-11-25' }); // no session id
    expect(missing).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Bad Request: the Mcp-Session-Id header is required' },
    });
  });
});

describe('the id of an authentication refusal', () => {
  it('follows the revision the request names', async () => {
    const { url } = await start({
      auth: {
        verifier: apiKeyVerifier({ key: { subject: 'alice' } }),
        resource: 'http://localhost/mcp',
        authorizationServers: ['https://issuer.example.test'],
      },
    });
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const latest = await post(url, ping, { 'mcp-protocol-version': '2025-11-25' });
    expect(latest.status).toBe(401);
    expect(await latest.json()).not.toHaveProperty('id');
    expect(await (await post(url, ping, { 'mcp-protocol-version': '2025-06-18' })).json()).toHaveProperty(
      'id',
      null,
    );
  });
});
