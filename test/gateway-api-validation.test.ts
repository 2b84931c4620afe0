// The decision API refuses what it cannot do with a clear 4xx, never a 500 (or a 502) nor a decision it was
// not asked for: an "approve always" longer than grants may last, contradictory decisions, a call of an
// unknown tool, arguments nested too deep, invalid limit and after values; a method a route does not take is a
// 405 that names those it does (Allow). And `toolwire approvals` refuses the same. A gateway served in this process, one upstream whose `write`
// tool asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../src/client/index.js';
import { MAX_GRANT_MS, serveGateway, type Gateway, type GatewayHttpHandle } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { runCli } from './_cli.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

let setup: ServedGateway | undefined;
let gateway: Gateway;
let served: GatewayHttpHandle;
let model: Client;

beforeAll(async () => {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool('write', {}, () => text('written'));
  setup = await serveGatewayFor(server, { config: { policy: { default: 'ask' } } });
  ({ gateway, served, model } = setup);
});

afterAll(() => setup?.close());

const api = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${served.apiUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${served.api.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A call of `write` held for approval: its approval's id, and its result to come. */
async function held(): Promise<{ id: string; result: ReturnType<Client['callTool']> }> {
  const known = new Set((await gateway.approvals.pending()).map((approval) => approval.id));
  const result = model.callTool('files__write', {});
  for (;;) {
    const fresh = (await gateway.approvals.pending()).find((approval) => !known.has(approval.id));
    if (fresh) return { id: fresh.id, result };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('approve always for how long', () => {
  it('refuses an alwaysForMs beyond 365 days with 400, and the approval stays pending', async () => {
    const { id, result } = await held();
    for (const alwaysForMs of [Number.MAX_SAFE_INTEGER, 8.64e15, MAX_GRANT_MS + 1]) {
      const refused = await errorOf(await api(`/approvals/${id}/approve`, { always: true, alwaysForMs }));
      expect(refused).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
      expect(refused.message).toMatch(/alwaysForMs .* at most 31536000000 \(365 days\)/);
    }
    expect((await gateway.approvals.get(id))?.outcome).toBeUndefined();
    const approved = await api(`/approvals/${id}/approve`, { always: true, alwaysForMs: MAX_GRANT_MS });
    expect(approved.status).toBe(200);
    expect((await result).isError).toBeFalsy();
    await gateway.approvals.forgetUpstream('files');
  });

  it('toolwire approvals approve --for beyond 365 days is a usage error (exit 2)', async () => {
    const run = await runCli(
      [
        'approvals',
        'approve',
        'some-id',
        '--for',
        String(Number.MAX_SAFE_INTEGER),
        '--gateway',
        served.apiUrl,
      ],
      { env: { TOOLWIRE_TOKEN: served.api.token } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--for may be at most 31536000000 \(365 days\)/);
  });
});

describe('contradictory decisions', () => {
  it('refuses {always: false, alwaysForMs} with 400; the approval stays pending, and the next call still asks', async () => {
    const { id, result } = await held();
    const refused = await errorOf(
      await api(`/approvals/${id}/approve`, { always: false, alwaysForMs: 60_000 }),
    );
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(refused.message).toMatch(/alwaysForMs goes with always: true/);
    expect((await gateway.approvals.get(id))?.outcome).toBeUndefined();
    expect((await api(`/approvals/${id}/approve`, { always: false })).status).toBe(200);
    expect((await result).isError).toBeFalsy();
    // Approved once only: the next call is held again.
    const next = await held();
    expect((await api(`/approvals/${next.id}/deny`, {})).status).toBe(200);
    expect((await next.result).isError).toBe(true);
  });
});

describe("the console's routes", () => {
  it('answers a call of an unknown tool with 404 TOOL_NOT_FOUND', async () => {
    const refused = await errorOf(await api('/tools/nope/call', { arguments: {} }));
    expect(refused).toMatchObject({ status: 404, code: 'TOOL_NOT_FOUND' });
  });

  it('refuses arguments nested deeper than 64 levels with 400, before reading them', async () => {
    // 20,000 levels in 40 KB of text (under the API's 64 KiB), written out: JSON.stringify would overflow here.
    const deep = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
    const response = await fetch(`${served.apiUrl}/tools/files__write/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.api.token}`, 'content-type': 'application/json' },
      body: `{"arguments":{"deep":${deep}}}`,
    });
    const refused = await errorOf(response);
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(refused.message).toMatch(/nested deeper than 64 levels/);
  });

  it('refuses invalid limit and after values with 400', async () => {
    for (const query of [
      '/audit?limit=-1',
      '/audit?limit=abc',
      '/audit?after=abc',
      '/calls?limit=abc',
      '/calls?limit=0',
    ]) {
      const refused = await errorOf(await api(query));
      expect(refused, query).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    }
    for (const query of ['/audit?limit=5&after=0', '/audit?after=3', '/calls?limit=5']) {
      expect((await api(query)).status, query).toBe(200);
    }
  });
});

describe('405 answers', () => {
  it('name the methods the route takes in Allow (RFC 9110), on every route of the API and the console', async () => {
    const withConsole = await serveGateway(gateway, {
      port: 0,
      mcp: false,
      api: { token: served.api.token },
    });
    try {
      const cases: [method: string, path: string, allow: string][] = [
        ['PUT', '/api', 'GET'],
        ['PUT', '/api/approvals', 'GET'],
        ['GET', '/api/approvals/x/approve', 'POST'],
        ['POST', '/api/audit', 'GET'],
        ['POST', '/api/upstreams', 'GET'],
        ['POST', '/api/events', 'GET'],
        ['PUT', '/api/session', 'GET, POST, DELETE'],
        ['POST', '/api/tools', 'GET'],
        ['GET', '/api/tools/files__write/call', 'POST'],
        ['GET', '/api/tools/files__write/policy', 'POST'],
        ['DELETE', '/api/calls', 'GET'],
        ['POST', '/api/calls/1', 'GET'],
        ['GET', '/api/calls/1/cancel', 'POST'],
        ['POST', '/api/resources/read?uri=x', 'GET'],
        ['GET', '/api/upstreams/files/sign-in', 'POST'],
        ['GET', '/api/sign-in/callback', 'POST'],
        ['POST', '/console/', 'GET, HEAD'],
        ['DELETE', '/console/index.html', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of cases) {
        const response = await fetch(`http://127.0.0.1:${withConsole.port}${path}`, {
          method,
          headers: { authorization: `Bearer ${served.api.token}`, 'content-type': 'application/json' },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
      }
    } finally {
      await withConsole.close();
    }
  });
});
