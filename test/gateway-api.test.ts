// The decision API served by `serveGateway` in this process, with authentication on the MCP endpoint: the
// MCP endpoint's verifier also admits principals with the deciding role, callers are named by their
// principal in approvals (a principal whose token expired is refused, as at the MCP endpoint), the event
// stream reports calls as they start and finish (each event saying when the call started), and a console
// session signed out stays ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type Gateway, type GatewayHttpHandle } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { MemoryGrantStore } from '../src/stores/grant-store.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import {
  apiKeyVerifier,
  serveHttp,
  type HttpServerHandle,
  type TokenVerifier,
} from '../src/transports/http/index.js';
import { GatewayEvents, type GatewayEventData } from './_gateway.js';

let upstream: HttpServerHandle;
let gateway: Gateway;
let served: GatewayHttpHandle;

const keys = apiKeyVerifier({
  'ada-key': { subject: 'ada', roles: ['approver'] },
  'bob-key': { subject: 'bob' },
});
/** The keys, and an approver whose token expired a minute ago (a verifier that leaves the check to its caller). */
const verifier: TokenVerifier = async (token, request) =>
  token === 'expired-key'
    ? { subject: 'eve', scopes: [], roles: ['approver'], expiresAt: Date.now() - 60_000 }
    : keys(token, request);

const api = (path: string, key: string, init: { body?: unknown } = {}) =>
  fetch(`${served.apiUrl}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

async function client(key: string): Promise<Client> {
  const c = new Client({ name: 'model', version: '1.0.0' });
  await c.connect(new StreamableHttpClientTransport({ url: served.url!, bearer: key }));
  return c;
}

beforeAll(async () => {
  const server = new Server({ name: 'notes', version: '1.0.0' });
  server.tool('save', { annotations: { destructiveHint: true } }, () => text('saved'));
  server.tool('read', { annotations: { readOnlyHint: true } }, () => text('notes'));
  server.tool('count', { annotations: { readOnlyHint: true } }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'half');
    return text('counted');
  });
  upstream = await serveHttp(server, { port: 0 });
  gateway = createGateway(
    { upstreams: { notes: { url: upstream.url, trusted: true } } },
    { onLog: () => undefined },
  );
  await gateway.start();
  served = await serveGateway(gateway, {
    port: 0,
    mcp: {
      auth: {
        verifier,
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['https://auth.example.com'],
      },
    },
  });
});

afterAll(async () => {
  await served?.close();
  await gateway?.close();
  await upstream?.close();
});

describe('the decision API beside an authenticated MCP endpoint', () => {
  it('admits the API token, and principals of the MCP verifier with the approver role only', async () => {
    expect((await api('/approvals', served.api.token)).status).toBe(200);
    expect((await api('/approvals', 'ada-key')).status).toBe(200);
    expect((await api('/approvals', 'bob-key')).status).toBe(401);
    expect((await api('/approvals', 'nobody')).status).toBe(401);
  });

  it('refuses a principal whose token has expired (401), as the MCP endpoint does', async () => {
    expect((await api('/approvals', 'expired-key')).status).toBe(401);
    expect((await api('/tools/notes__save/policy', 'expired-key', { body: { action: 'deny' } })).status).toBe(
      401,
    );
    const mcp = await fetch(served.url!, {
      method: 'POST',
      headers: {
        authorization: 'Bearer expired-key',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(401);
    // Nor can it trade the token for a console session.
    const session = await fetch(`${served.apiUrl}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
      body: JSON.stringify({ token: 'expired-key' }),
    });
    expect(session.status).toBe(401);
  });

  it('names the caller by its principal, records who decided, and streams the call as it goes', async () => {
    const bob = await client('bob-key');
    try {
      const events = new GatewayEvents(await api('/events', served.api.token));
      // A trusted upstream: read-only runs, destructive asks.
      expect((await bob.callTool('notes__read')).content).toEqual([{ type: 'text', text: 'notes' }]);
      await events.next('call.finished', (e) => e.decision === 'allowed' && e.outcome === 'ok');
      const call = bob.callTool('notes__save');
      const pending = await events.next('approval.pending');
      expect(pending.approval).toMatchObject({
        caller: { principal: 'bob' }, // a stateless-era caller: no session
        reason: 'the tool may be destructive (destructiveHint)',
      });
      const id = (pending.approval as { id: string }).id;
      expect((await api(`/approvals/${id}/approve`, 'ada-key', { body: {} })).status).toBe(200);
      expect((await call).content).toEqual([{ type: 'text', text: 'saved' }]);
      const decision = await events.next('audit', (e) => (e.record as { kind: string }).kind === 'decision');
      expect(decision.record).toMatchObject({ decidedBy: 'ada', decision: 'approved', approvalId: id });
    } finally {
      await bob.close();
    }
  });

  it('names the person who cancelled a call waiting for approval as its withdrawer, and the caller when it did', async () => {
    const bob = await client('bob-key');
    try {
      const events = new GatewayEvents(await api('/events', served.api.token));
      const call = bob.callTool('notes__save');
      const pending = await events.next('approval.pending');
      const { id, callId } = pending.approval as { id: string; callId: number };

      expect((await api(`/calls/${callId}/cancel`, 'ada-key', { body: {} })).status).toBe(200);
      expect((await call).content).toEqual([
        { type: 'text', text: 'The call of notes__save was cancelled by ada.' },
      ]);
      // The approval's settlement and the call's end are reported in whichever order they happen.
      const seen: GatewayEventData[] = [];
      const mine = (e: GatewayEventData) =>
        (e.type === 'approval.decided' && (e.approval as { id: string }).id === id) ||
        (e.type === 'audit' && (e.record as { approvalId?: string }).approvalId === id);
      while (seen.length < 3) seen.push(await events.next('*', mine));
      const by = (type: string, kind?: string) =>
        seen.find(
          (e) => e.type === type && (kind === undefined || (e.record as { kind: string }).kind === kind),
        );
      expect(by('approval.decided')?.outcome).toMatchObject({
        decision: 'withdrawn',
        decidedBy: 'ada',
        reason: 'cancelled by ada',
      });
      expect(by('audit', 'decision')?.record).toMatchObject({
        decision: 'withdrawn',
        decidedBy: 'ada',
        reason: 'cancelled by ada',
      });
      expect(by('audit', 'call')?.record).toMatchObject({
        decision: 'withdrawn',
        decidedBy: 'ada',
        reason: 'cancelled by ada',
        outcome: 'cancelled',
      });

      // The caller cancels its own call: the gateway withdraws it, saying so.
      const controller = new AbortController();
      const own = bob.callTool('notes__save', {}, { signal: controller.signal });
      const second = await events.next('approval.pending');
      const secondId = (second.approval as { id: string }).id;
      controller.abort();
      await expect(own).rejects.toThrow();
      const withdrawn = await events.next(
        'approval.decided',
        (e) => (e.approval as { id: string }).id === secondId,
      );
      expect(withdrawn.outcome).toMatchObject({
        decision: 'withdrawn',
        reason: 'the caller cancelled the call',
      });
      expect(withdrawn.outcome).not.toHaveProperty('decidedBy');
    } finally {
      await bob.close();
    }
  });

  it("says in every call event when the call started, by the gateway's clock, as GET /api/calls lists it", async () => {
    const bob = await client('bob-key');
    try {
      const events = new GatewayEvents(await api('/events', served.api.token));
      const before = new Date().toISOString();
      expect((await bob.callTool('notes__count')).content).toEqual([{ type: 'text', text: 'counted' }]);
      const after = new Date().toISOString();
      const started = await events.next('call.started', (e) => (e.call as { tool: string }).tool === 'count');
      const id = (started.call as { id: number }).id;
      const progress = await events.next('call.progress', (e) => e.callId === id);
      const finished = await events.next('call.finished', (e) => e.callId === id);
      const startedAt = started.startedAt as string;
      expect(startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(startedAt >= before && startedAt <= after).toBe(true);
      expect(progress).toMatchObject({ startedAt, progress: 1, total: 2, message: 'half' });
      expect(finished).toMatchObject({ startedAt, outcome: 'ok' });
      const { calls } = (await (await api('/calls', served.api.token)).json()) as {
        calls: { call: { id: number }; startedAt: string }[];
      };
      expect(calls.find((c) => c.call.id === id)?.startedAt).toBe(startedAt);
    } finally {
      await bob.close();
    }
  });

  it('ends a console session for good on DELETE /api/session: its cookie no longer works', async () => {
    const signIn = await fetch(`${served.apiUrl}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
      body: JSON.stringify({ token: 'ada-key' }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const withCookie = (method: string, body?: unknown) =>
      fetch(`${served.apiUrl}${body === undefined ? '/session' : '/tools/notes__read/policy'}`, {
        method,
        headers: {
          cookie,
          'x-toolwire-console': '1',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await withCookie('GET')).status).toBe(200);
    expect((await withCookie('DELETE')).status).toBe(200);
    // The same cookie, replayed (a copy kept elsewhere): refused, for reading and for changing.
    expect((await withCookie('GET')).status).toBe(401);
    expect((await withCookie('POST', { action: null })).status).toBe(401);
  });
});

describe('ended console sessions in a full grant store (memory)', () => {
  it('keeps a signed-out cookie refused after more sign-outs than the store keeps; later sessions work', async () => {
    // A store that keeps 3 grants a scope: the ended-sessions scope overflows after 3 other sign-outs.
    const small = createGateway(
      { upstreams: {} },
      { onLog: () => undefined, stores: { grants: new MemoryGrantStore({ maxGrantsPerScope: 3 }) } },
    );
    await small.start();
    const handle = await serveGateway(small, { port: 0 });
    try {
      const signIn = async () => {
        const response = await fetch(`${handle.apiUrl}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
          body: JSON.stringify({ token: handle.api.token }),
        });
        expect(response.status).toBe(200);
        return response.headers.get('set-cookie')!.split(';')[0]!;
      };
      const session = (cookie: string, method = 'GET') =>
        fetch(`${handle.apiUrl}/session`, { method, headers: { cookie, 'x-toolwire-console': '1' } }).then(
          (response) => response.status,
        );
      const victim = await signIn();
      expect(await session(victim, 'DELETE')).toBe(200);
      expect(await session(victim)).toBe(401);
      for (let i = 0; i < 5; i++) expect(await session(await signIn(), 'DELETE')).toBe(200);
      expect(await session(victim)).toBe(401);
      // A session signed in since expires after every one dropped: it works.
      expect(await session(await signIn())).toBe(200);
    } finally {
      await handle.close();
      await small.close();
    }
  });
});
