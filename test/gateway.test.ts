// The gateway end to end, with real processes: the official SDK 1.x client as the model's client → the
// `toolwire gateway --http` process → upstreams over stdio (the toolwire demo, the protocol fixture at
// 2025-11-25, a server that crashes on request, the official server-everything) and over HTTP (the
// protocol fixture, served in this process, met in the stateless era). Approvals are decided through the
// decision API, and every wait is for an event (the API's event stream, a notification), never a sleep.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import type { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import {
  CRASHY_FIXTURE,
  EVERYTHING,
  PROTOCOL_FIXTURE,
  TOKEN,
  startGateway,
  toolwireUpstream,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';

let gateway: RunningGateway;
let web: HttpServerHandle;
let workspace: string;
const clients: ClientV1[] = [];

/** An SDK 1.x client connected to the gateway (closed after the suite). */
async function sdkClient(capabilities: Record<string, unknown> = {}): Promise<ClientV1> {
  const client = new ClientV1({ name: 'model-client', version: '1.0.0' }, { capabilities });
  await client.connect(new HttpV1(new URL(gateway.url)));
  clients.push(client);
  return client;
}

const texts = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content.map((block) => block.text);

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), 'toolwire-gateway-ws-'));
  const fixture = (await import(new URL('./fixtures/http-server.mjs', import.meta.url).href)) as {
    default: (options: object) => Server;
  };
  web = await serveHttp(fixture.default({ listChangedDebounceMs: 0 }), { port: 0 });
  const config = writeConfig({
    upstreams: {
      demo: toolwireUpstream(undefined, { env: { TOOLWIRE_DEMO_ROOT: workspace } }),
      fx: toolwireUpstream(PROTOCOL_FIXTURE, { protocolVersion: '2025-11-25' }),
      crashy: toolwireUpstream(CRASHY_FIXTURE),
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' },
      web: { url: web.url },
    },
    policy: {
      rules: [
        { upstream: 'demo', tool: 'write_file', action: 'ask' },
        { upstream: 'fx', tool: 'add', action: 'ask' },
        { tool: 'throws', action: 'deny' },
      ],
      default: 'allow',
    },
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    approvals: { progressIntervalMs: 200 },
  });
  gateway = await startGateway(['--config', config]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await gateway?.close();
  await web?.close();
});

describe('the gateway in front of five upstreams', () => {
  it('lists every upstream tool under its namespaced name, with what the upstream said about it', async () => {
    const client = await sdkClient();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'demo__read_file',
        'demo__write_file',
        'fx__echo',
        'fx__slow',
        'crashy__hello',
        'everything__echo',
        'web__echo',
        'web__reconnect',
      ]),
    );
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools.find((tool) => tool.name === 'fx__echo')).toEqual({
      name: 'fx__echo',
      title: 'Echo',
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
      icons: [expect.objectContaining({ mimeType: 'image/png' })],
      _meta: { 'com.example/x': 1 },
    });
    expect(client.getServerVersion()).toMatchObject({ name: 'toolwire-gateway' });
  });

  it('calls tools of every upstream, stdio and HTTP, and the official server-everything', async () => {
    const client = await sdkClient();
    expect(texts(await client.callTool({ name: 'fx__echo', arguments: { text: 'one' } }))).toEqual(['one']);
    expect(texts(await client.callTool({ name: 'web__echo', arguments: { text: 'two' } }))).toEqual(['two']);
    expect(
      texts(await client.callTool({ name: 'everything__echo', arguments: { message: 'three' } })),
    ).toEqual(['Echo: three']);
    expect(await client.callTool({ name: 'demo__list_files', arguments: {} })).toMatchObject({
      structuredContent: { entries: [], truncated: false },
    });
  });

  it('passes resources, templates and prompts through, and routes completion', async () => {
    const client = await sdkClient();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['test://static-text']));
    expect(await client.readResource({ uri: 'test://static-text' })).toMatchObject({
      contents: [{ uri: 'test://static-text', text: 'This is the content of the static text resource.' }],
    });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['fx__test_prompt_with_arguments']));
    expect(
      await client.getPrompt({ name: 'fx__test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } }),
    ).toMatchObject({ messages: [{ content: { text: "Prompt with arguments: arg1='a', arg2='b'" } }] });
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'fx__test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'pa' },
    });
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
  });

  it("exits 1 for a call the gateway denies, as toolwire call's help says (5 is toolwire's own prompt)", async () => {
    const denied = await runCli(['call', '--tool', 'fx__throws', '--yes', gateway.url]);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain("The gateway's policy denies fx__throws");
    const help = (await runCli(['call', '--help'])).stdout;
    expect(help).toMatch(/^ {2}1 {2}tool error \(.*a call a gateway denies/m);
    expect(help).toMatch(/^ {2}5 {2}denied \(toolwire's own prompt did not approve the tool call/m);
  });

  it('denies by rule: an isError result naming the rule, and nothing reaches the upstream', async () => {
    const client = await sdkClient();
    expect(await client.callTool({ name: 'fx__throws', arguments: {} })).toEqual({
      content: [{ type: 'text', text: "The gateway's policy denies fx__throws: rule 3 (*.throws=deny)." }],
      isError: true,
    });
  });
});

describe('approvals', () => {
  it('holds the call until approved once; the next identical call asks again', async () => {
    const client = await sdkClient();
    const events = await gateway.events();
    const call = client.callTool({
      name: 'demo__write_file',
      arguments: { path: 'once.txt', content: 'hi' },
    });
    const pending = (await events.next('approval.pending')).approval as Record<string, unknown>;
    expect(pending).toMatchObject({
      upstream: 'demo',
      tool: 'write_file',
      exposedName: 'demo__write_file',
      arguments: { path: 'once.txt', content: 'hi' },
      argumentsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      caller: { sessionId: expect.any(String) },
      reason: 'rule 1 (demo.write_file=ask)',
      annotations: expect.objectContaining({ destructiveHint: true }),
    });
    expect(existsSync(path.join(workspace, 'once.txt'))).toBe(false);
    const listed = (await (await gateway.api('/approvals')).json()) as { approvals: { id: string }[] };
    expect(listed.approvals.map((a) => a.id)).toContain(pending.id);
    const decided = await gateway.api(`/approvals/${String(pending.id)}/approve`, {
      body: { argumentsDigest: pending.argumentsDigest },
    });
    expect(decided.status).toBe(200);
    expect(texts(await call)).toEqual(['Wrote once.txt (2 B)']);
    expect(readFileSync(path.join(workspace, 'once.txt'), 'utf8')).toBe('hi');
    // Single use: the same approval cannot release another call.
    const again = await gateway.api(`/approvals/${String(pending.id)}/approve`, { body: {} });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'APPROVAL_SETTLED' } });
    const second = client.callTool({
      name: 'demo__write_file',
      arguments: { path: 'once.txt', content: 'again', overwrite: true },
    });
    const next = (await events.next('approval.pending')).approval as { id: string };
    expect(next.id).not.toBe(pending.id);
    await gateway.api(`/approvals/${next.id}/deny`, { body: {} });
    expect(await second).toMatchObject({ isError: true });
  });

  it('denies with the reason the model reads, and the file is not written', async () => {
    const client = await sdkClient();
    const events = await gateway.events();
    const call = client.callTool({
      name: 'demo__write_file',
      arguments: { path: 'denied.txt', content: 'x' },
    });
    const { id } = (await events.next('approval.pending')).approval as { id: string };
    const answer = await gateway.api(`/approvals/${id}/deny`, { body: { reason: 'not that file' } });
    expect(await answer.json()).toMatchObject({ outcome: { decision: 'denied', reason: 'not that file' } });
    expect(await call).toEqual({
      content: [{ type: 'text', text: 'The call of demo__write_file was denied: not that file.' }],
      isError: true,
    });
    expect(existsSync(path.join(workspace, 'denied.txt'))).toBe(false);
  });

  it('refuses a decision for other arguments than the call has (bound to their digest)', async () => {
    const client = await sdkClient();
    const events = await gateway.events();
    const call = client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
    const { id } = (await events.next('approval.pending')).approval as { id: string };
    const wrong = await gateway.api(`/approvals/${id}/approve`, { body: { argumentsDigest: 'sha256:00' } });
    expect(wrong.status).toBe(409);
    expect(await wrong.json()).toMatchObject({ error: { code: 'APPROVAL_MISMATCH' } });
    await gateway.api(`/approvals/${id}/approve`, { body: {} });
    expect(await call).toMatchObject({ structuredContent: { sum: 3 } });
  });

  it('approves always: later calls of that tool by that caller run without asking, others still ask', async () => {
    const client = await sdkClient();
    const other = await sdkClient();
    const events = await gateway.events();
    const first = client.callTool({ name: 'fx__add', arguments: { a: 2, b: 2 } });
    const { id } = (await events.next('approval.pending')).approval as { id: string };
    await gateway.api(`/approvals/${id}/approve`, { body: { always: true } });
    expect(await first).toMatchObject({ structuredContent: { sum: 4 } });
    expect(await client.callTool({ name: 'fx__add', arguments: { a: 3, b: 3 } })).toMatchObject({
      structuredContent: { sum: 6 },
    });
    const audit = (await (await gateway.api('/audit?limit=1')).json()) as { records: unknown[] };
    expect(audit.records).toEqual([
      expect.objectContaining({ kind: 'call', tool: 'add', decision: 'remembered', outcome: 'ok' }),
    ]);
    // Another caller (another session) is asked.
    const theirs = other.callTool({ name: 'fx__add', arguments: { a: 4, b: 4 } });
    const asked = (await events.next('approval.pending')).approval as { id: string };
    await gateway.api(`/approvals/${asked.id}/approve`, { body: {} });
    expect(await theirs).toMatchObject({ structuredContent: { sum: 8 } });
  });

  it('decides from the command line: toolwire approvals list, deny with a reason', async () => {
    const client = await sdkClient();
    const stream = await gateway.events();
    const call = client.callTool({ name: 'fx__add', arguments: { a: 2, b: 2 } });
    const { id } = (await stream.next('approval.pending')).approval as { id: string };
    const base = gateway.base;
    const env = { TOOLWIRE_TOKEN: TOKEN };
    const list = await runCli(['approvals', 'list', '--json', '--gateway', base], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({
      approvals: [{ id, upstream: 'fx', tool: 'add', arguments: { a: 2, b: 2 } }],
    });
    const human = await runCli(['approvals', 'list', '--gateway', `${base}/mcp`], { env });
    expect(human.stdout).toContain(`${id}  fx.add`);
    const deny = await runCli(['approvals', 'deny', id, '--reason', 'not now', '--gateway', base], { env });
    expect(deny).toMatchObject({ code: 0, stdout: 'denied: fx.add {"a":2,"b":2}\n' });
    expect(await call).toMatchObject({
      isError: true,
      content: [{ text: 'The call of fx__add was denied: not now.' }],
    });
    const again = await runCli(['approvals', 'approve', id, '--json', '--gateway', base], { env });
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'APPROVAL_SETTLED' } });
    const wrongToken = await runCli(['approvals', 'list', '--gateway', base], {
      env: { TOOLWIRE_TOKEN: 'nope' },
    });
    expect(wrongToken.code).toBe(5);
  });

  it("decides from the command line by the start of an approval's id, and says when none is pending so", async () => {
    const client = await sdkClient();
    const stream = await gateway.events();
    const call = client.callTool({ name: 'fx__add', arguments: { a: 7, b: 7 } });
    const { id } = (await stream.next('approval.pending')).approval as { id: string };
    const cli = (args: string[]) =>
      runCli(['approvals', ...args, '--json', '--gateway', gateway.base], { env: { TOOLWIRE_TOKEN: TOKEN } });
    // Too short to name one, or the start of no pending approval's id: refused, naming what was given.
    const short = await cli(['deny', id.slice(0, 5)]);
    expect(short.code).toBe(2);
    expect(JSON.parse(short.stdout)).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
    const other = id.startsWith('0') ? '1' : '0';
    const unknown = await cli(['deny', `${other}${id.slice(1, 8)}`]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      error: { code: 'APPROVAL_NOT_FOUND', message: expect.stringContaining('starts with') },
    });
    const deny = await cli(['deny', id.slice(0, 8).toUpperCase(), '--reason', 'by its start']);
    expect(deny.code).toBe(0);
    expect(JSON.parse(deny.stdout)).toMatchObject({ approval: { id }, outcome: { decision: 'denied' } });
    expect(await call).toMatchObject({
      isError: true,
      content: [{ text: 'The call of fx__add was denied: by its start.' }],
    });
  });

  it('tells a caller that asked for progress that it waits for approval, then relays the tool progress', async () => {
    const client = await sdkClient();
    const events = await gateway.events();
    const seen: Progress[] = [];
    const call = client.callTool({ name: 'fx__add', arguments: { a: 5, b: 5 } }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    const { id } = (await events.next('approval.pending')).approval as { id: string };
    await expect.poll(() => seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]).toEqual({ progress: 1, message: expect.stringContaining(`Waiting for approval ${id}`) });
    await gateway.api(`/approvals/${id}/approve`, { body: {} });
    expect(await call).toMatchObject({ structuredContent: { sum: 10 } });
  });
});

describe('relays', () => {
  it('relays progress and cancellation both ways', async () => {
    const client = await sdkClient();
    const seen: Progress[] = [];
    await client.callTool({ name: 'web__slow', arguments: { steps: 2, ms: 50 } }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(seen[0]).toEqual({ progress: 1, total: 2, message: 'step 1' });
    const controller = new AbortController();
    const call = client.callTool({ name: 'fx__wait_for_cancel', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop now'),
    });
    await expect(call).rejects.toThrow('stop now');
    // The upstream's handler saw the cancellation (its reason is the gateway's signal's).
    await expect
      .poll(async () => texts(await client.callTool({ name: 'fx__last_cancel', arguments: {} }))[0])
      .not.toBe('none');
  });

  it("relays an upstream's list_changed to downstream sessions", async () => {
    const client = await sdkClient();
    // Resolves at the first list_changed after which the listing has the new tools (another upstream's
    // list_changed may come first; its listing would not).
    const extras = async () =>
      (await client.listTools()).tools
        .filter((tool) => tool.name.startsWith('web__extra_'))
        .map((t) => t.name);
    const changed = new Promise<string[]>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        const names = await extras();
        if (names.length > 0) resolve(names);
      }),
    );
    expect(await extras()).toEqual([]);
    await client.callTool({ name: 'web__add_tools', arguments: { count: 2 } });
    expect(await changed).toHaveLength(1); // of the two, the fixture disables one
  });

  it.each([
    { upstream: 'fx', era: 'handshake' },
    { upstream: 'web', era: 'stateless' },
  ])(
    "relays the $upstream upstream's elicitation ($era era) to a handshake-era caller",
    async ({ upstream }) => {
      const client = await sdkClient({ elicitation: {} });
      client.setRequestHandler(ElicitRequestSchema, (request) => ({
        action: 'accept',
        content: { name: request.params.message === 'Name?' ? 'Ada' : '?' },
      }));
      expect(texts(await client.callTool({ name: `${upstream}__ask`, arguments: {} }))).toEqual([
        'accept:Ada',
      ]);
    },
  );

  it.each([
    { upstream: 'fx', era: 'handshake' },
    { upstream: 'web', era: 'stateless' },
  ])(
    "relays the $upstream upstream's elicitation ($era era) to a stateless-era caller",
    async ({ upstream }) => {
      const client = new Client(
        { name: 'stateless', version: '1.0.0' },
        {
          protocolVersion: '2026-07-28',
          elicitation: (params) => ({
            action: 'accept',
            content: { name: params.message === 'Name?' ? 'Grace' : '?' },
          }),
        },
      );
      await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
      try {
        expect((await client.callTool(`${upstream}__ask`)).content).toEqual([
          { type: 'text', text: 'accept:Grace' },
        ]);
      } finally {
        await client.close();
      }
    },
  );

  it('keeps two callers apart when their request ids collide', async () => {
    const [a, b] = [await sdkClient(), await sdkClient()];
    // Fresh SDK clients number their requests alike: these calls carry the same ids on both sessions.
    const progressA: Progress[] = [];
    const progressB: Progress[] = [];
    const [resultA, resultB] = await Promise.all([
      a.callTool({ name: 'web__slow', arguments: { steps: 2, ms: 30 } }, undefined, {
        onprogress: (p) => progressA.push(p),
      }),
      b.callTool({ name: 'web__slow', arguments: { steps: 3, ms: 30 } }, undefined, {
        onprogress: (p) => progressB.push(p),
      }),
    ]);
    expect(texts(resultA)).toEqual(['done after 2']);
    expect(texts(resultB)).toEqual(['done after 3']);
    expect(progressA.every((p) => p.total === 2)).toBe(true);
    expect(progressB.every((p) => p.total === 3)).toBe(true);
    const echoes = await Promise.all(
      ['a', 'b', 'a', 'b'].map((who, i) =>
        (who === 'a' ? a : b).callTool({ name: 'fx__echo', arguments: { text: `${who}${i}` } }),
      ),
    );
    expect(echoes.map((r) => texts(r)[0])).toEqual(['a0', 'b1', 'a2', 'b3']);
  });
});

describe('upstream health', () => {
  it("takes a crashed upstream's tools away, answers its calls with isError, and brings them back", async () => {
    const client = await sdkClient();
    const events = await gateway.events();
    const before = texts(await client.callTool({ name: 'crashy__hello', arguments: {} }))[0];
    await client.callTool({ name: 'crashy__crash', arguments: {} });
    await events.next('upstream.status', (e) => e.upstream === 'crashy' && e.status === 'down');
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name.startsWith('crashy__'))).toBe(false);
    // A call that races the reconnect: isError saying the upstream is unavailable (or, if it is back
    // already, its answer) — never a hang or a protocol error.
    const during = await client.callTool({ name: 'crashy__hello', arguments: {} });
    if (during.isError) expect(texts(during)[0]).toMatch(/^Upstream crashy is unavailable/);
    await events.next('upstream.status', (e) => e.upstream === 'crashy' && e.status === 'ready');
    const after = texts(await client.callTool({ name: 'crashy__hello', arguments: {} }))[0];
    expect(after).toMatch(/^hello from \d+$/);
    expect(after).not.toBe(before); // another process
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('crashy__hello');
  });
});

describe('the decision API', () => {
  it('answers 401 without the token and 403 to a foreign Origin, whatever the token', async () => {
    const none = await fetch(`${gateway.base}/api/approvals`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await gateway.api('/approvals', { headers: { authorization: 'Bearer wrong' } })).status).toBe(
      401,
    );
    const foreign = await gateway.api('/approvals', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const foreignPost = await gateway.api('/approvals/x/approve', {
      body: {},
      headers: { origin: 'https://evil.example' },
    });
    expect(foreignPost.status).toBe(403);
    expect((await gateway.api('/approvals', { headers: { origin: gateway.base } })).status).toBe(200);
  });

  it('takes decisions only as application/json (no form can send one)', async () => {
    const response = await fetch(`${gateway.base}/api/approvals/x/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'always=true',
    });
    expect(response.status).toBe(415);
    expect((await gateway.api('/approvals/nope/approve', { body: {} })).status).toBe(404);
    expect((await gateway.api('/upstreams')).status).toBe(200);
  });

  it('reports every upstream and keeps audit records without the arguments', async () => {
    const { upstreams } = (await (await gateway.api('/upstreams')).json()) as {
      upstreams: { name: string; status: string; transport: string; protocolVersion?: string }[];
    };
    expect(upstreams.map((u) => [u.name, u.transport])).toEqual([
      ['demo', 'stdio'],
      ['fx', 'stdio'],
      ['crashy', 'stdio'],
      ['everything', 'stdio'],
      ['web', 'http'],
    ]);
    expect(upstreams.find((u) => u.name === 'fx')?.protocolVersion).toBe('2025-11-25');
    expect(upstreams.find((u) => u.name === 'web')?.protocolVersion).toBe('2026-07-28');
    const { records } = (await (await gateway.api('/audit')).json()) as {
      records: Record<string, unknown>[];
    };
    expect(records.length).toBeGreaterThan(0);
    expect(JSON.stringify(records)).not.toContain('once.txt');
  });
});
