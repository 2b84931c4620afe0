// toolwire's Streamable HTTP server in the stateless era (2026-07-28), on the wire with raw fetch: a
// request served on its own (SSE or JSON, no session), the request metadata headers (Mcp-Method,
// Mcp-Name, Mcp-Param via x-mcp-header), errors mapped to HTTP statuses and JSON-RPC codes.
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { SseReader } from './_sse.js';
import {
  META,
  SERVER_INFO,
  STATELESS,
  answer,
  closeServer,
  handle,
  start,
  stateless,
  text,
} from './_http-stateless.js';

afterEach(closeServer);

const QUERY = { name: 'query', arguments: { region: 'us-west1', sql: 'select 1' } };

describe('Streamable HTTP server, stateless era', () => {
  it('serves a request on its own: SSE ending with the response, no session id, X-Accel-Buffering: no', async () => {
    const url = await start();
    const response = await stateless(url, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
      headers: { 'mcp-session-id': 'not-a-session', 'last-event-id': 'not-an-event' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const reader = new SseReader(response);
    const event = await reader.next();
    expect(event?.id).toBeUndefined(); // nothing to resume from
    expect(JSON.parse(event!.data)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'hi' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    expect(await reader.next()).toBeUndefined(); // the response ends the stream
    expect(handle!.handler.sessionCount).toBe(0);
    expect(handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
  });

  it('sends progress on the request stream before the response', async () => {
    const url = await start();
    const reader = new SseReader(
      await stateless(url, {
        method: 'tools/call',
        params: { name: 'slow', arguments: { steps: 2, ms: 5 }, _meta: META({ progressToken: 'p' }) },
      }),
    );
    const messages = [];
    for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
      messages.push(message);
    expect(messages.map((m) => m.method ?? `response ${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response 1',
    ]);
  });

  it('answers with one JSON body in JSON mode', async () => {
    const url = await start({ responseMode: 'json' });
    const response = await stateless(url, { method: 'tools/list' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({
      id: 1,
      result: { resultType: 'complete', ttlMs: 0, cacheScope: 'public' },
    });
  });

  it.each([
    ['MCP-Protocol-Version is missing', { 'mcp-protocol-version': undefined }, 'MCP-Protocol-Version'],
    ['MCP-Protocol-Version differs from _meta', { 'mcp-protocol-version': '2025-11-25' }, '"2025-11-25"'],
    ['Mcp-Method is missing', { 'mcp-method': undefined }, 'Mcp-Method'],
    ['Mcp-Method differs from the method', { 'mcp-method': 'tools/list' }, '"tools/list"'],
    ['Mcp-Name is missing', { 'mcp-name': undefined }, 'Mcp-Name'],
    ['Mcp-Name differs from params.name', { 'mcp-name': 'add' }, '"add"'],
    ['Mcp-Name differs in case only', { 'mcp-name': 'ECHO' }, '"ECHO"'],
    ['Mcp-Name is a sentinel with bad Base64', { 'mcp-name': '=?base64?!!?=' }, 'invalid'],
  ])('refuses a request whose %s with 400 and -32020', async (_what, headers, mentioned) => {
    const url = await start();
    const response = await stateless(url, {
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      headers,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020 } });
    expect(body.error.message).toContain(mentioned);
  });

  it('accepts header names in any case and Mcp-Name as a Base64 sentinel', async () => {
    const url = await start();
    const response = await stateless(url, {
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      headers: { 'mcp-name': undefined, 'MCP-NAME': `=?base64?${btoa('echo')}?=` },
    });
    expect(response.status).toBe(200);
    expect(text(await answer(response))).toBe('x');
  });

  it('compares Mcp-Name with a resource URI that is not header-safe, Base64-encoded', async () => {
    const url = await start();
    const uri = 'test://template/über/data';
    const encoded = `=?base64?${Buffer.from(uri).toString('base64')}?=`;
    const ok = await stateless(url, {
      method: 'resources/read',
      params: { uri },
      headers: { 'mcp-name': encoded },
    });
    expect(ok.status).toBe(200);
    expect(await answer(ok)).toMatchObject({ result: { contents: [{ uri, text: '{"id":"über"}' }] } });
    const other = `=?base64?${Buffer.from('test://template/uber/data').toString('base64')}?=`;
    const bad = await stateless(url, {
      method: 'resources/read',
      params: { uri },
      headers: { 'mcp-name': other },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32020 } });
  });

  it('maps the errors of stateless requests to HTTP statuses', async () => {
    const url = await start();
    const unsupported = await stateless(url, {
      method: 'tools/list',
      params: { _meta: META({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      headers: { 'mcp-protocol-version': '2099-01-01' },
    });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: [STATELESS], requested: '2099-01-01' },
      },
    });
    const noCapabilities = await stateless(url, {
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': STATELESS } },
    });
    expect(noCapabilities.status).toBe(400);
    expect(await noCapabilities.json()).toMatchObject({ error: { code: -32602 } });
    const unknownMethod = await stateless(url, { method: 'tools/unknown' });
    expect(unknownMethod.status).toBe(404);
    expect(await unknownMethod.json()).toMatchObject({ id: 1, error: { code: -32601 } });
    const unknownTool = await stateless(url, {
      method: 'tools/call',
      params: { name: 'nope', arguments: {} },
    });
    expect(unknownTool.status).toBe(400);
    expect(await unknownTool.json()).toMatchObject({
      error: { code: -32602, message: 'Unknown tool: nope' },
    });
    const ping = await stateless(url, { method: 'ping' }); // a handshake-era method only
    expect(ping.status).toBe(404);
    expect(await ping.json()).toMatchObject({ error: { code: -32601 } });
  });

  it('refuses a request that names the stateless era in its header but not in _meta (400, -32602)', async () => {
    const url = await start();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': STATELESS,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('accepts a stateless-era notification with 202 and refuses stateless requests in a batch', async () => {
    const url = await start();
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': STATELESS,
    };
    const note = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever', params: {} }),
    });
    expect(note.status).toBe(202);
    expect(note.headers.get('mcp-session-id')).toBeNull();
    const batch = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META() } }]),
    });
    expect(batch.status).toBe(400);
  });

  describe('x-mcp-header', () => {
    const call = (url: string, args: JsonObject, headers: Record<string, string | undefined>) =>
      stateless(url, { method: 'tools/call', params: { name: 'query', arguments: args }, headers });

    it('serves a call whose Mcp-Param headers match its arguments', async () => {
      const url = await start();
      const response = await call(
        url,
        { region: 'us-west1', limit: 42, dryRun: false, options: { tenant: 'acme' }, sql: 'select 1' },
        {
          'mcp-param-region': 'us-west1',
          'Mcp-Param-Limit': '42.0', // integers compare numerically
          'mcp-param-dry-run': 'false',
          'mcp-param-tenant': 'acme',
        },
      );
      expect(response.status).toBe(200);
      expect(JSON.parse(text(await answer(response)))).toEqual({
        region: 'us-west1',
        limit: 42,
        dryRun: false,
        tenant: 'acme',
        sql: 'select 1',
      });
    });

    it('expects no header for an absent or null argument', async () => {
      const url = await start();
      const response = await call(url, { region: 'eu', limit: null, sql: 'x' }, { 'mcp-param-region': 'eu' });
      expect(response.status).toBe(200);
    });

    it.each([
      ['the argument is absent', { sql: 'x' }, 'us-west1', 'body value null'],
      ['the argument is null', { region: null, sql: 'x' }, 'us-west1', 'body value null'],
      ['the argument is absent and the header malformed', { sql: 'x' }, '=?base64?%%?=', 'invalid'],
    ])(
      'refuses an Mcp-Param header sent when %s with 400 and -32020',
      async (_what, args, region, mentioned) => {
        const url = await start();
        const response = await call(url, args, { 'mcp-param-region': region });
        expect(response.status).toBe(400);
        const body = (await response.json()) as { error: { code: number; message: string } };
        expect(body.error).toMatchObject({
          code: -32020,
          message: expect.stringContaining('Mcp-Param-Region'),
        });
        expect(body.error.message).toContain(mentioned);
      },
    );

    it('decodes a Base64 sentinel before comparing', async () => {
      const url = await start();
      const region = 'Hello, 世界';
      const response = await call(
        url,
        { region, sql: 'x' },
        { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' },
      );
      expect(response.status).toBe(200);
      expect(JSON.parse(text(await answer(response)))).toMatchObject({ region });
    });

    const REGION = { 'mcp-param-region': 'us-west1' };
    it.each([
      ['the header is missing', QUERY.arguments, {}, 'Mcp-Param-Region header is required'],
      ['the value differs', QUERY.arguments, { 'mcp-param-region': 'eu-west1' }, '"eu-west1"'],
      [
        'an integer differs',
        { ...QUERY.arguments, limit: 3 },
        { ...REGION, 'mcp-param-limit': '4' },
        'Mcp-Param-Limit',
      ],
      [
        'a boolean differs',
        { ...QUERY.arguments, dryRun: true },
        { ...REGION, 'mcp-param-dry-run': 'TRUE' },
        'Mcp-Param-Dry-Run',
      ],
      [
        'a nested parameter is missing',
        { ...QUERY.arguments, options: { tenant: 'acme' } },
        REGION,
        'Mcp-Param-Tenant header is required',
      ],
      [
        'a plain value looks like the sentinel',
        { ...QUERY.arguments, region: '=?base64?abc?=' },
        { 'mcp-param-region': '=?base64?abc?=' },
        'invalid',
      ],
    ])('refuses a call where %s with 400 and -32020', async (_what, args, headers, mentioned) => {
      const url = await start();
      const response = await call(url, args, headers);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32020);
      expect(body.error.message).toContain(mentioned);
    });
  });
});
