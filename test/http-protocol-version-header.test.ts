// The MCP-Protocol-Version header of the handshake era on the wire (2025-06-18 … 2025-11-25: "invalid or
// unsupported" is 400): checked against the server's own `versions` on POST, GET and DELETE before the
// session is touched, and the 2025-03-26 default of a headerless request only where the server speaks it.
import { afterEach, describe, expect, it } from 'vitest';
import { ACCEPT, INIT, open, post } from './_http.js';
import { closeServer, handle, start } from './_http-stateless.js';
import { SseReader } from './_sse.js';

afterEach(closeServer);

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** The JSON-RPC error of a 400, checked to be one. */
async function refusal(response: Response): Promise<{ code: number; message: string }> {
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toBe('application/json');
  return ((await response.json()) as { error: { code: number; message: string } }).error;
}

describe('MCP-Protocol-Version, handshake era', () => {
  it('refuses on POST, GET and DELETE a revision the server does not speak, and the session survives', async () => {
    const url = await start({ versions: ['2025-11-25', '2026-07-28'] });
    const sid = await open(url, '2025-11-25');
    const as = (version: string) => ({ 'mcp-session-id': sid, 'mcp-protocol-version': version });
    for (const version of ['2025-06-18', '1999-01-01']) {
      expect(await refusal(await post(url, PING, as(version)))).toEqual({
        code: -32600,
        message: `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: 2025-11-25)`,
      });
      const get = await fetch(url, { headers: { accept: 'text/event-stream', ...as(version) } });
      expect(await refusal(get)).toMatchObject({ code: -32600, message: expect.stringContaining(version) });
      const del = await fetch(url, { method: 'DELETE', headers: as(version) });
      expect(await refusal(del)).toMatchObject({ code: -32600, message: expect.stringContaining(version) });
    }
    expect(handle!.handler.sessionCount).toBe(1);
    const ping = await post(url, PING, as('2025-11-25'));
    expect(await new SseReader(ping).nextMessage()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const get = await fetch(url, { headers: { accept: 'text/event-stream', ...as('2025-11-25') } });
    expect(get.status).toBe(200);
    await get.body?.cancel();
    expect((await fetch(url, { method: 'DELETE', headers: as('2025-11-25') })).status).toBe(200);
  });

  it('serves a session at the revision it negotiated whatever other revision the header names', async () => {
    const url = await start({ responseMode: 'json' });
    const sid = await open(url, '2025-03-26');
    const batch = [PING, { ...PING, id: 2 }];
    const answered = await post(url, batch, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    expect(await answered.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('negotiates an initialize whose header names a revision the server does not speak', async () => {
    const url = await start({ versions: ['2025-11-25'], responseMode: 'json' });
    const response = await post(url, INIT('2025-06-18'), { 'mcp-protocol-version': '2025-06-18' });
    expect(await response.json()).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
  });

  describe('a stateless server', () => {
    it.each(['json', 'sse'] as const)(
      'refuses a headerless request when it does not speak 2025-03-26 (%s)',
      async (responseMode) => {
        const url = await start({ stateless: true, responseMode, versions: ['2025-11-25'] });
        for (const body of [PING, [PING]]) {
          expect(await refusal(await post(url, body))).toEqual({
            code: -32600,
            message:
              'Bad Request: the MCP-Protocol-Version header is required (this server does not speak 2025-03-26; supported: 2025-11-25)',
          });
        }
        const served = await post(url, PING, { 'mcp-protocol-version': '2025-11-25' });
        expect(served.status).toBe(200);
        expect(await refusal(await post(url, PING, { 'mcp-protocol-version': '2025-06-18' }))).toMatchObject({
          message: expect.stringContaining('unsupported MCP-Protocol-Version 2025-06-18'),
        });
      },
    );

    it('takes a headerless request as 2025-03-26 when it speaks that revision (a batch too)', async () => {
      const url = await start({
        stateless: true,
        responseMode: 'json',
        versions: ['2025-11-25', '2025-03-26'],
      });
      const answered = await fetch(url, {
        method: 'POST',
        headers: { accept: ACCEPT, 'content-type': 'application/json' },
        body: JSON.stringify([PING]),
      });
      expect(await answered.json()).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    });
  });
});
