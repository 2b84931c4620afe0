// Authentication and access control on the wire. Over HTTP (stateful, stateless and 2026-07-28 requests,
// and the legacy HTTP+SSE endpoints): RFC 9728 metadata, 401 challenges for a missing, expired, foreign
// or forged token, 403 insufficient_scope for a tool's scopes, sessions bound to their subject, tools
// hidden from callers who may not call them, per-principal rate limits, tokens never passed on. Over
// in-memory and stdio: the same access rules for a principal given at connect time or by the environment.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import type { CallToolResult } from '../src/protocol/types/tools.js';
import * as source from '../src/server/index.js';
import type { AuditRecord, Principal, Server, ServerOptions } from '../src/server/index.js';
import {
  jwtVerifier,
  type AuthRefusal,
  serveHttp,
  type HttpServerHandle,
  type ServeHttpOptions,
} from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer, serverCommand } from './_setup.js';
import { ISSUER, startIssuer, type TestIssuer, type TokenOptions } from './_tokens.js';

const FIXTURE = new URL('./fixtures/auth-server.mjs', import.meta.url);
type Build = (mod: typeof source, options?: ServerOptions) => Server;
const fixture = async (options: ServerOptions = {}): Promise<Server> =>
  ((await import(FIXTURE.href)) as { build: Build }).build(source, options);

const RESOURCE = 'https://mcp.example.test/mcp';
const METADATA_URL = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp';
const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

let issuer: TestIssuer;
beforeAll(async () => (issuer = await startIssuer()));
afterAll(() => issuer.close());

/** A signed access token for `subject`, valid for this server unless told otherwise. */
const token = (subject: string, options: TokenOptions = {}) => issuer.token(subject, RESOURCE, options);

let handle: HttpServerHandle | undefined;
/** What the resource server reported as refused (its security log). */
let refusals: AuthRefusal[] = [];
afterEach(async () => {
  await handle?.close();
  handle = undefined;
  refusals = [];
});

async function start(http: ServeHttpOptions = {}, options: ServerOptions = {}): Promise<string> {
  handle = await serveHttp(await fixture(options), {
    port: 0,
    responseMode: 'json',
    auth: {
      verifier: jwtVerifier({ jwksUrl: issuer.jwksUrl, issuer: ISSUER, audience: RESOURCE }),
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      scopesSupported: ['notes:read', 'notes:write'],
      onRefused: (refusal) => void refusals.push(refusal),
    },
    ...http,
  });
  return handle.url;
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

/** POSTs one JSON-RPC message the way each mode expects it. */
function post(
  url: string,
  message: { id?: number; method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
  stateless = false,
): Promise<Response> {
  const params = stateless ? { ...message.params, _meta: STATELESS_META } : (message.params ?? {});
  const name = message.params?.name;
  return fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(stateless
        ? {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': message.method,
            ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
          }
        : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: message.id ?? 1, ...message, params }),
  });
}

const INITIALIZE = {
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The parameters of a `WWW-Authenticate: Bearer …` challenge. */
function challenge(response: Response): Record<string, string> {
  const header = response.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  const pairs = [...header.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m): [string, string] => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
  return Object.fromEntries(pairs);
}

async function connectHttp(url: string, accessToken: string, protocolVersion: string): Promise<Client> {
  const client = new Client(
    { name: 'auth-test', version: '1.0.0' },
    { protocolVersion: protocolVersion as '2025-11-25' },
  );
  await client.connect(new StreamableHttpClientTransport({ url, headers: bearer(accessToken) }));
  return client;
}

const names = async (client: Client) => (await client.listTools()).map((tool) => tool.name).sort();
const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : b.type));

const MODES = [
  { mode: 'stateful', http: {}, protocolVersion: '2025-11-25', stateless: false },
  { mode: 'stateless', http: { stateless: true }, protocolVersion: '2025-06-18', stateless: false },
  { mode: '2026-07-28', http: {}, protocolVersion: '2026-07-28', stateless: true },
] as const;

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the path-inserted and the root well-known URLs, without a token', async () => {
    const url = await start();
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, url));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        scopes_supported: ['notes:read', 'notes:write'],
        bearer_methods_supported: ['header'],
      });
    }
  });
});

describe.each(MODES)('authentication over HTTP [$mode]', ({ http, protocolVersion, stateless }) => {
  const first = stateless ? { method: 'tools/list' } : INITIALIZE;

  it('answers a request without a token with 401 and a challenge naming the metadata', async () => {
    const url = await start(http);
    const response = await post(url, first, {}, stateless);
    expect(response.status).toBe(401);
    const params = challenge(response);
    expect(params.resource_metadata).toBe(METADATA_URL);
    expect(params.scope).toBe('notes:read notes:write');
    expect(params.error).toBeUndefined();
    expect(refusals).toEqual([
      { status: 401, error: undefined, description: 'authorization required', method: 'POST', path: '/mcp' },
    ]);
  });

  it.each([
    ['expired', { expiresIn: Math.floor(Date.now() / 1000) - 60 }],
    ['for another audience', { audience: 'https://other.example.test/mcp' }],
    ['from another issuer', { issuer: 'https://evil.example.test' }],
    ['signed by another key', { forged: true }],
  ] as const)('refuses a token %s with 401 invalid_token', async (_what, options) => {
    const url = await start(http);
    const forged = await token('mallory', {
      scope: 'notes:read notes:write',
      ...options,
    });
    const response = await post(url, first, bearer(forged), stateless);
    expect(response.status).toBe(401);
    const params = challenge(response);
    expect(params.error).toBe('invalid_token');
    expect(params.resource_metadata).toBe(METADATA_URL);
    expect(await response.text()).not.toContain(forged);
  });

  it('gives the toolwire client a 401 with the challenge, without the token', async () => {
    const url = await start(http);
    const expired = await token('alice', { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    const error = await connectHttp(url, expired, protocolVersion).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { status: 401, error: 'invalid_token', resourceMetadata: METADATA_URL },
    });
    expect(JSON.stringify(error)).not.toContain(expired);
    expect(String(error)).not.toContain(expired);
  });

  it('refuses a token in the query string', async () => {
    const url = await start(http);
    const good = await token('alice', { scope: 'notes:read' });
    const response = await post(`${url}?access_token=${good}`, first, {}, stateless);
    expect(response.status).toBe(400);
    expect(challenge(response).error).toBe('invalid_request');
  });

  it('shows each caller the tools it may call, and refuses the others', async () => {
    const url = await start(http);
    const reader = await connectHttp(url, await token('alice', { scope: 'notes:read' }), protocolVersion);
    const writer = await connectHttp(
      url,
      await token('bob', { scope: 'notes:read notes:write', roles: ['admin'] }),
      protocolVersion,
    );
    try {
      expect(await names(reader)).toEqual(['echo', 'read_notes', 'whoami']);
      expect(await names(writer)).toEqual(['admin_reset', 'echo', 'read_notes', 'whoami', 'write_notes']);
      expect(textOf(await reader.callTool('read_notes'))).toEqual(['the notes']);
      expect(textOf(await writer.callTool('write_notes', { text: 'x' }))).toEqual(['wrote x']);
      expect(textOf(await writer.callTool('admin_reset'))).toEqual(['reset']);
      // The toolwire client surfaces the step-up challenge: what to ask the authorization server for.
      await expect(reader.callTool('write_notes', { text: 'x' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        details: { status: 403, error: 'insufficient_scope', resourceMetadata: METADATA_URL },
      });
      await expect(reader.callTool('admin_reset')).rejects.toThrow(/Unknown tool: admin_reset/);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('answers a call that lacks scopes with 403 insufficient_scope naming the scopes to ask for', async () => {
    const url = await start(http);
    const readOnly = await token('alice', { scope: 'notes:read' });
    const headers: Record<string, string> = { ...bearer(readOnly) };
    if (!stateless && !('stateless' in http)) {
      const init = await post(url, INITIALIZE, headers);
      headers['mcp-session-id'] = init.headers.get('mcp-session-id') ?? '';
    }
    if (!stateless) headers['mcp-protocol-version'] = '2025-11-25';
    const call = { id: 2, method: 'tools/call', params: { name: 'write_notes', arguments: { text: 'x' } } };
    const response = await post(url, call, headers, stateless);
    expect(response.status).toBe(403);
    const params = challenge(response);
    expect(params.error).toBe('insufficient_scope');
    expect(params.scope?.split(' ').sort()).toEqual(['notes:read', 'notes:write']);
    expect(refusals.at(-1)).toMatchObject({ status: 403, error: 'insufficient_scope', subject: 'alice' });
    expect(params.resource_metadata).toBe(METADATA_URL);
  });

  it('never hands the token on: the handler sees verified facts only, the audit log the subject', async () => {
    const records: AuditRecord[] = [];
    const url = await start(http, { audit: { sink: { write: (record) => void records.push(record) } } });
    const secret = await token('carol', { scope: 'notes:read' });
    const client = await connectHttp(url, secret, protocolVersion);
    try {
      const [shown] = textOf(await client.callTool('whoami'));
      const seen = JSON.parse(shown ?? '{}') as { principal: Principal };
      expect(seen.principal).toMatchObject({ subject: 'carol', scopes: ['notes:read'] });
      expect(shown).not.toContain(secret);
      expect(shown).not.toContain(secret.split('.')[2]);
      expect(records.map((r) => [r.tool, r.principal, r.decision])).toEqual([['whoami', 'carol', 'allowed']]);
      expect(JSON.stringify(records)).not.toContain(secret);
    } finally {
      await client.close();
    }
  });

  it('counts rate limits per principal: one caller over its limit does not hold back another', async () => {
    const url = await start(http, {
      rateLimit: { global: false, perCaller: { burst: 3, perSecond: 0.001 } },
    });
    const alice = await connectHttp(url, await token('alice'), protocolVersion);
    const bob = await connectHttp(url, await token('bob'), protocolVersion);
    try {
      const outcomes: Array<'ok' | number> = [];
      for (let i = 0; i < 5; i++) {
        outcomes.push(
          await alice.callTool('echo', { text: 'hi' }).then(
            () => 'ok' as const,
            (error: unknown) => (error instanceof ProtocolError ? error.code : -1),
          ),
        );
      }
      expect(outcomes).toEqual(['ok', 'ok', 'ok', -31429, -31429]);
      expect(textOf(await bob.callTool('echo', { text: 'still here' }))).toEqual(['still here']);
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});

describe('sessions are bound to the principal that opened them', () => {
  it("refuses another subject's token on a live session id (POST, GET, DELETE), and the owner goes on", async () => {
    const url = await start({ responseMode: 'sse' });
    const alice = await connectHttp(url, await token('alice', { scope: 'notes:read' }), '2025-11-25');
    try {
      const init = await post(url, INITIALIZE, bearer(await token('alice', { scope: 'notes:read' })));
      const sessionId = init.headers.get('mcp-session-id') ?? '';
      expect(sessionId).not.toBe('');
      const mallory = bearer(await token('mallory', { scope: 'notes:read notes:write' }));
      const theirs = { ...mallory, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const hijack = await post(url, { id: 2, method: 'tools/list' }, theirs);
      expect(hijack.status).toBe(404);
      const listen = await fetch(url, { headers: { ...theirs, accept: 'text/event-stream' } });
      expect(listen.status).toBe(404);
      const end = await fetch(url, { method: 'DELETE', headers: theirs });
      expect(end.status).toBe(404);
      expect(refusals.map((r) => [r.method, r.status, r.error, r.subject])).toEqual(
        ['POST', 'GET', 'DELETE'].map((method) => [method, 404, 'session_of_another_subject', 'mallory']),
      );
      // The owner's session is untouched.
      const own = await post(
        url,
        { id: 3, method: 'tools/list' },
        {
          ...bearer(await token('alice', { scope: 'notes:read' })),
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      );
      expect(own.status).toBe(200);
      expect(await names(alice)).toEqual(['echo', 'read_notes', 'whoami']);
    } finally {
      await alice.close();
    }
  });

  it('binds the legacy HTTP+SSE stream the same way', async () => {
    const url = await start();
    const base = new URL(url);
    expect((await fetch(new URL('/sse', base))).status).toBe(401);
    const opened = await fetch(new URL('/sse', base), {
      headers: { ...bearer(await token('alice')), accept: 'text/event-stream' },
    });
    expect(opened.status).toBe(200);
    const reader = opened.body!.getReader();
    let first = '';
    while (!first.includes('\n\n')) first += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(first)?.[1] ?? '';
    const message = { jsonrpc: '2.0', id: 1, ...INITIALIZE };
    const send = async (who: string) =>
      fetch(new URL(endpoint, base), {
        method: 'POST',
        headers: { ...bearer(await token(who)), 'content-type': 'application/json' },
        body: JSON.stringify(message),
      });
    expect((await send('mallory')).status).toBe(404);
    expect(refusals.at(-1)).toMatchObject({
      status: 404,
      error: 'session_of_another_subject',
      subject: 'mallory',
      path: '/messages',
    });
    expect((await send('alice')).status).toBe(202);
    await reader.cancel();
  });
});

describe('the 2026-07-28 cache hint follows access control', () => {
  it('marks list results private once tool lists vary by caller', async () => {
    const url = await start();
    const response = await post(url, { method: 'tools/list' }, bearer(await token('alice')), true);
    const body = (await response.json()) as { result: { cacheScope?: string; tools: { name: string }[] } };
    expect(body.result.cacheScope).toBe('private');
    expect(body.result.tools.map((t) => t.name)).toEqual(['echo', 'whoami']);
  });
});

describe('access control without HTTP', () => {
  const inMemory = async (principal: Principal | undefined, options: ServerOptions = {}) =>
    linkServer(await fixture(options), {}, principal ? { principal } : {});

  it('hides scoped tools from an anonymous caller and refuses them with -31403 and the scopes', async () => {
    const records: AuditRecord[] = [];
    await using c = await inMemory(undefined, { audit: { sink: { write: (r) => void records.push(r) } } });
    expect(await names(c.client)).toEqual(['echo', 'whoami']);
    const error = await c.client.callTool('read_notes').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: -31403,
      data: { requiredScopes: ['notes:read'], missingScopes: ['notes:read'] },
    });
    await expect(c.client.callTool('admin_reset')).rejects.toMatchObject({ code: -32602 });
    expect(records.map((r) => [r.tool, r.decision, r.outcome])).toEqual([
      ['read_notes', 'denied', 'error'],
      ['admin_reset', 'denied', 'error'],
    ]);
  });

  it('refuses before the arguments are checked, so a refused caller learns nothing of the schema', async () => {
    await using c = await inMemory({ subject: 'alice', scopes: ['notes:read'] });
    await expect(c.client.callTool('write_notes', {})).rejects.toMatchObject({
      code: -31403,
      data: { missingScopes: ['notes:write'] },
    });
  });

  it('applies an access policy to listing and calling alike, and pages stay consistent per caller', async () => {
    const policy = (principal: Principal | undefined, tool: { name: string }) =>
      tool.name !== 'echo' || principal?.claims?.beta === true;
    await using plain = await inMemory({ subject: 'a', scopes: [] }, { accessPolicy: policy, pageSize: 1 });
    await using beta = await inMemory(
      { subject: 'b', scopes: [], claims: { beta: true } },
      { accessPolicy: policy, pageSize: 1 },
    );
    expect(await names(plain.client)).toEqual(['whoami']);
    expect(await names(beta.client)).toEqual(['echo', 'whoami']);
    await expect(plain.client.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: -32602 });
    expect(textOf(await beta.client.callTool('echo', { text: 'x' }))).toEqual(['x']);
  });

  it('takes the principal of a stdio server from its environment', async () => {
    const transport = new StdioClientTransport({
      ...serverCommand(FIXTURE.pathname),
      env: { TOOLWIRE_SUBJECT: 'dana', TOOLWIRE_SCOPES: 'notes:read notes:write' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'access-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(await names(client)).toEqual(['echo', 'read_notes', 'whoami', 'write_notes']);
      const [shown] = textOf(await client.callTool('whoami'));
      expect(JSON.parse(shown ?? '{}')).toMatchObject({ principal: { subject: 'dana' } });
    } finally {
      await client.close();
    }
    const anonymous = new Client({ name: 'access-stdio', version: '1.0.0' });
    await anonymous.connect(
      new StdioClientTransport({ ...serverCommand(FIXTURE.pathname), stderr: 'ignore' }),
    );
    try {
      expect(await names(anonymous)).toEqual(['echo', 'whoami']);
    } finally {
      await anonymous.close();
    }
  });
});
