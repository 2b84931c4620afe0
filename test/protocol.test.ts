// The protocol suite: one client, one fixture server, every transport, every handshake-era revision.
import { describe, expect, it } from 'vitest';
import type { Cancellation } from '../src/protocol/engine/cancellation.js';
import { ProtocolError, ToolwireError } from '../src/protocol/errors.js';
import type { ProgressParams } from '../src/protocol/types/lifecycle.js';
import { LATEST_HANDSHAKE_REVISION, HANDSHAKE_REVISIONS } from '../src/protocol/revisions/index.js';
import { INPUT_HANDLERS, describeMatrix, expectInputAnswered, type Connect } from './_setup.js';
import { FIXTURE_TOOL_NAMES } from './interop/_helpers.js';

const ALL_TOOLS = FIXTURE_TOOL_NAMES;

describeMatrix('protocol', (connectAny) => {
  // The handshake-era suite: without a pinned revision, connect as a handshake-era client would (the
  // stateless era has its own suite, test/client-stateless-*.test.ts).
  const connect: Connect = (options) =>
    connectAny({ protocolVersion: LATEST_HANDSHAKE_REVISION, ...options });
  it.each(HANDSHAKE_REVISIONS)('negotiates %s when the client speaks only that revision', async (version) => {
    await using c = await connect({ protocolVersion: version });
    expect(c.client.protocolVersion).toBe(version);
    expect(c.client.serverInfo?.name).toBe('protocol-fixture');
    // title exists from 2025-06-18 only
    expect(c.client.serverInfo?.title).toBe(version >= '2025-06-18' ? 'Protocol fixture' : undefined);
    expect(c.client.serverCapabilities?.tools).toEqual({ listChanged: true });
    expect(c.client.instructions).toBe('fixture');
  });

  it('follows every cursor of a paginated tools/list, in registration order', async () => {
    await using c = await connect();
    const tools = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
  });

  it('shapes tool definitions for each revision', async () => {
    await using old = await connect({ protocolVersion: '2024-11-05' });
    const echoOld = (await old.client.listTools()).find((t) => t.name === 'echo');
    expect(echoOld).toEqual({
      name: 'echo',
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    await using mid = await connect({ protocolVersion: '2025-06-18' });
    const midTools = await mid.client.listTools();
    const echoMid = midTools.find((t) => t.name === 'echo')!;
    expect(echoMid.title).toBe('Echo');
    expect(echoMid.annotations).toEqual({ readOnlyHint: true });
    expect(echoMid.icons).toBeUndefined();
    expect(midTools.find((t) => t.name === 'add')!.outputSchema).toBeDefined();
    await using latest = await connect();
    const echoNew = (await latest.client.listTools()).find((t) => t.name === 'echo')!;
    expect(echoNew.icons?.[0]?.mimeType).toBe('image/png');
    expect(echoNew._meta).toEqual({ 'com.example/x': 1 });
  });

  it('calls a tool and returns its text', async () => {
    await using c = await connect();
    expect(await c.client.callTool('echo', { text: 'hi' })).toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('returns structuredContent with its JSON as text, checked against the outputSchema', async () => {
    await using c = await connect();
    await c.client.listTools();
    expect(await c.client.callTool('add', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
    expect(await c.client.callTool('structured_only')).toEqual({
      content: [{ type: 'text', text: '{"ok":true}' }],
      structuredContent: { ok: true },
    });
  });

  it('drops structuredContent for a 2025-03-26 peer but keeps the data as text', async () => {
    await using c = await connect({ protocolVersion: '2025-03-26' });
    expect(await c.client.callTool('structured_only')).toEqual({
      content: [{ type: 'text', text: '{"ok":true}' }],
    });
  });

  it('returns isError for arguments that fail the schema', async () => {
    await using c = await connect();
    const result = await c.client.callTool('add', { a: 'one' });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text' });
    const message = (result.content[0] as { text: string }).text;
    expect(message).toContain('Invalid arguments for tool add');
    expect(message).toMatch(/\/a must be number/);
    expect(message).toMatch(/required property 'b'/);
  });

  it('returns isError when the handler throws', async () => {
    await using c = await connect();
    expect(await c.client.callTool('throws')).toEqual({
      content: [{ type: 'text', text: 'Tool throws failed: kaboom' }],
      isError: true,
    });
  });

  it('returns isError when a tool breaks its own outputSchema', async () => {
    await using c = await connect();
    const result = await c.client.callTool('bad_output');
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(
      /does not match its outputSchema: \/n must be number/,
    );
  });

  it('answers an unknown tool with -32602', async () => {
    await using c = await connect();
    const error = await c.client.callTool('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: nope' });
  });

  it('shapes every content type for each revision', async () => {
    const shapes: Record<string, string[]> = {};
    for (const version of HANDSHAKE_REVISIONS) {
      await using c = await connect({ protocolVersion: version });
      const result = await c.client.callTool('all_content');
      shapes[version] = result.content.map((b) => b.type);
      if (version === '2024-11-05') {
        expect(result.content[0]).toEqual({
          type: 'text',
          text: 'hello',
          annotations: { audience: ['user'], priority: 0.5 },
        });
        expect(result.content[2]).toEqual({
          type: 'resource',
          resource: { uri: 'data:audio/wav;base64,', mimeType: 'audio/wav', blob: 'UklGRg==' },
        });
        expect(result.content[3]).toEqual({
          type: 'text',
          text: 'Resource link: a.txt file:///a.txt (text/plain): A file',
        });
        expect(result.content[4]).toEqual({
          type: 'resource',
          resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'bee' },
        });
      }
      if (version === '2025-06-18') {
        expect(result.content[3]).toEqual({
          type: 'resource_link',
          uri: 'file:///a.txt',
          name: 'a.txt',
          mimeType: 'text/plain',
          description: 'A file',
        });
      }
      if (version === '2025-11-25') {
        expect(result.content[0]).toMatchObject({
          _meta: { k: 1 },
          annotations: { lastModified: '2025-01-01T00:00:00Z' },
        });
        expect(result.content[3]).toMatchObject({ icons: [{ src: 'data:,' }] });
      }
    }
    expect(shapes).toEqual({
      '2024-11-05': ['text', 'image', 'resource', 'text', 'resource'],
      '2025-03-26': ['text', 'image', 'audio', 'text', 'resource'],
      '2025-06-18': ['text', 'image', 'audio', 'resource_link', 'resource'],
      '2025-11-25': ['text', 'image', 'audio', 'resource_link', 'resource'],
    });
  });

  it('delivers increasing progress when the caller asks for it', async () => {
    await using c = await connect();
    const seen: ProgressParams[] = [];
    const result = await c.client.callTool('slow', { steps: 3, ms: 5 }, { onProgress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'done after 3' }]);
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ]);
  });

  it('drops the progress message for a 2024-11-05 peer', async () => {
    await using c = await connect({ protocolVersion: '2024-11-05' });
    const seen: ProgressParams[] = [];
    await c.client.callTool('slow', { steps: 1, ms: 1 }, { onProgress: (p) => seen.push(p) });
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('message');
  });

  it('aborting a call sends notifications/cancelled and aborts the handler', async () => {
    await using c = await connect();
    const controller = new AbortController();
    // Abort once the handler is waiting: it says so with a progress notification.
    const call = c.client.callTool(
      'wait_for_cancel',
      {},
      { signal: controller.signal, onProgress: () => controller.abort('user pressed stop') },
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolwireError);
    expect(error).toMatchObject({ code: 'REQUEST_CANCELLED' });
    await expect
      .poll(async () => (await c.client.callTool('last_cancel')).content)
      .toEqual([{ type: 'text', text: 'user pressed stop' }]);
  });

  it('a cancellation given instead of a signal cancels the call on the wire too', async () => {
    await using c = await connect();
    // A cancellation with no AbortSignal behind it (what a gateway relays: its caller's ctx.cancellation).
    const listeners: Array<(reason: unknown) => void> = [];
    let reason: unknown;
    const cancellation: Cancellation = {
      get aborted() {
        return reason !== undefined;
      },
      get reason() {
        return reason;
      },
      onAbort(listener) {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    };
    const stop = (why: string) => {
      reason = why;
      for (const listener of listeners.splice(0)) listener(why);
    };
    const call = c.client.callTool('wait_for_cancel', {}, { cancellation, onProgress: () => stop('hook') });
    const error = await call.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ToolwireError', code: 'REQUEST_CANCELLED' });
    await expect
      .poll(async () => (await c.client.callTool('last_cancel')).content)
      .toEqual([{ type: 'text', text: 'hook' }]);
    expect(listeners).toHaveLength(0);
    const late = await c.client.callTool('echo', { text: 'x' }, { cancellation }).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'REQUEST_CANCELLED' }); // already cancelled: never sent
  });

  it('times out a call, cancels it on the server, and reports a typed timeout', async () => {
    await using c = await connect();
    const error = await c.client.callTool('wait_for_cancel', {}, { timeout: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ToolwireError', code: 'REQUEST_TIMEOUT' });
    await expect
      .poll(async () => (await c.client.callTool('last_cancel')).content)
      .toEqual([{ type: 'text', text: 'Request timed out' }]);
  });

  it('resets the timeout on progress, up to the maximum total timeout', async () => {
    await using c = await connect();
    // 60 steps of 20 ms: the call lasts at least 1.2 s, more than the timeout, so it ends well only if progress
    // resets the timeout. A gap between two progress notifications is a step unless a process is starved: the
    // timeout (50 steps) is what a busy machine keeps (200 ms, 10 steps, was not: a server or client held
    // back that long timed the call out).
    const started = performance.now();
    const ok = await c.client.callTool(
      'slow',
      { steps: 60, ms: 20 },
      { timeout: 1000, resetTimeoutOnProgress: true, onProgress: () => {} },
    );
    expect(ok.content).toEqual([{ type: 'text', text: 'done after 60' }]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1198);
    // Progress every 20 ms for 4 s: only the maximum total timeout (300 ms) can end it early; were it ignored,
    // the call would succeed.
    const capped = await c.client
      .callTool(
        'slow',
        { steps: 200, ms: 20 },
        { timeout: 200, resetTimeoutOnProgress: true, maxTotalTimeout: 300, onProgress: () => {} },
      )
      .catch((e: unknown) => e);
    expect(capped).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });

  it('routes elicitation, sampling and roots requests to the client handlers', async () => {
    await using c = await connect(INPUT_HANDLERS);
    await expectInputAnswered(c.client);
  });

  it('refuses server requests the client did not declare, as an isError result', async () => {
    await using c = await connect();
    const result = await c.client.callTool('ask');
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(
      /did not declare the elicitation capability/,
    );
  });

  it('does not elicit from a 2025-03-26 client, which has no elicitation', async () => {
    await using c = await connect({
      protocolVersion: '2025-03-26',
      elicitation: () => ({ action: 'accept' }),
    });
    const result = await c.client.callTool('ask');
    expect(result.isError).toBe(true);
  });

  it('sends log messages and honours logging/setLevel', async () => {
    const lines: string[] = [];
    await using c = await connect({ onLog: (m) => lines.push(m.level) });
    await c.client.callTool('logs');
    await expect.poll(() => lines).toEqual(['debug', 'info', 'error']);
    lines.length = 0;
    await c.client.setLoggingLevel('info');
    await c.client.callTool('logs');
    await expect.poll(() => lines).toEqual(['info', 'error']);
    await expect(c.client.setLoggingLevel('loud' as never)).rejects.toMatchObject({ code: -32602 });
  });

  it('coalesces a burst of registry changes into one list_changed and refreshes the cache', async () => {
    await using c = await connect();
    await c.client.listTools();
    const updates: string[][] = [];
    c.client.onToolsChanged((tools) => updates.push(tools.map((t) => t.name)));
    await c.client.callTool('add_tools', { count: 4 });
    await expect.poll(() => updates.length).toBe(1);
    const names = updates[0]!;
    expect(names).toHaveLength(ALL_TOOLS.length + 3); // one of the four was disabled
    // A later change marks the end: its list_changed travels after any other the burst caused, so the second
    // update is the marker's (one more tool), never a second one for the burst.
    await c.client.callTool('add_tools', { count: 1 });
    await expect.poll(() => updates.length).toBeGreaterThanOrEqual(2);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toHaveLength(ALL_TOOLS.length + 4);
    const fresh = await c.client.listTools();
    expect(fresh.find((t) => t.name.startsWith('extra_'))?.description).toBe('updated');
  });

  it('passes the request _meta to the handler', async () => {
    await using c = await connect();
    const result = await c.client.callTool('slow', { steps: 0 }, { onProgress: () => {} });
    expect(result.content).toEqual([{ type: 'text', text: 'done after 0' }]);
    const meta = await c.client.callTool('meta', {}, { onProgress: () => {} });
    expect(JSON.parse((meta.content[0] as { text: string }).text)).toHaveProperty('progressToken');
  });

  it('answers ping', async () => {
    await using c = await connect();
    await expect(c.client.ping()).resolves.toBeUndefined();
  });
});

describe('client errors', () => {
  it('is typed when the client is not connected', async () => {
    const { Client } = await import('../src/client/index.js');
    const client = new Client({ name: 'x', version: '1' });
    await expect(client.listTools()).rejects.toMatchObject({ name: 'ClientError', code: 'NOT_CONNECTED' });
  });
});
