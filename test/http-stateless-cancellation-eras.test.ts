// toolwire's Streamable HTTP server in the stateless era (2026-07-28), on the wire with raw fetch:
// cancelling a call by closing its SSE stream or aborting its POST, a server that speaks only the
// stateless era (405 for GET and DELETE, 400 for initialize), and one that speaks both eras.
import { afterEach, describe, expect, it } from 'vitest';
import { META, STATELESS, answer, closeServer, handle, start, stateless, text } from './_http-stateless.js';

afterEach(closeServer);

describe('Streamable HTTP server, stateless era', () => {
  describe('cancellation', () => {
    const lastCancel = async (url: string) =>
      text(
        await answer(
          await stateless(url, {
            id: 9,
            method: 'tools/call',
            params: { name: 'last_cancel', arguments: {} },
          }),
        ),
      );

    it('cancels the call when the client closes its SSE stream', async () => {
      const url = await start({ keepAliveMs: 50 });
      const response = await stateless(url, {
        method: 'tools/call',
        params: { name: 'wait_for_cancel', arguments: {} },
      });
      expect(response.status).toBe(200); // the stream starts with its first keep-alive
      expect(handle!.handler.load).toEqual({ streams: 1, pendingRequests: 1 });
      await response.body!.cancel();
      await expect.poll(() => lastCancel(url)).toBe('The client closed the connection');
      expect(handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
    });

    it('cancels the call when the client aborts the POST in JSON mode', async () => {
      const url = await start({ responseMode: 'json' });
      const controller = new AbortController();
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait_for_cancel', arguments: {}, _meta: META() },
      };
      const pending = fetch(url, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': STATELESS,
          'mcp-method': 'tools/call',
          'mcp-name': 'wait_for_cancel',
        },
        body: JSON.stringify(body),
      });
      await expect.poll(() => handle!.handler.load.pendingRequests).toBe(1);
      controller.abort();
      await expect(pending).rejects.toThrow();
      await expect.poll(() => lastCancel(url)).toBe('The client closed the connection');
    });
  });

  describe('a server that speaks only the stateless era', () => {
    it('answers GET and DELETE with 405', async () => {
      const url = await start({ versions: [STATELESS] });
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('answers initialize with 400 naming its versions, and mints no session', async () => {
      const url = await start({ versions: [STATELESS] });
      const response = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'old', version: '1' },
          },
        }),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await response.json()).toMatchObject({
        id: 0,
        error: { code: -32602, data: { supported: [STATELESS], requested: '2025-11-25' } },
      });
    });

    it('serves stateless requests', async () => {
      const url = await start({ versions: [STATELESS] });
      expect(
        text(
          await answer(
            await stateless(url, {
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: 'm' } },
            }),
          ),
        ),
      ).toBe('m');
    });
  });

  it('keeps handshake-era GET and DELETE on a server that speaks both eras', async () => {
    const url = await start();
    const response = await fetch(url, { method: 'DELETE' });
    expect(response.status).toBe(400); // no session id: handshake-era meaning, not 405
  });
});
