// The official TypeScript SDK 1.x client (`@modelcontextprotocol/sdk` Client + its StdioClientTransport)
// against the toolwire fixture server, over stdio, at each handshake-era revision. The SDK parses every
// result with its zod schemas, so passing through its API proves the shapes are valid for it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type ClientRequest,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_TOOL_NAMES,
  REVISIONS,
  atLeast,
  expectedAddResult,
  expectedAddTool,
  expectedAllContent,
  expectedEchoTool,
  expectedFixtureCapabilities,
  expectedProgress,
  expectedServerInfo,
  toolwireServeCommand,
  type Revision,
} from './_helpers.js';

/**
 * SDK 1.x has no option for the offered revision: `Client.connect()` always sends `initialize` with
 * the constant LATEST_PROTOCOL_VERSION (2025-11-25), through `this.request(...)`. This subclass
 * overrides `request()` to rewrite `params.protocolVersion` of that one request, so the rest of the
 * SDK's own handshake runs unchanged (InitializeResultSchema parsing, the check against
 * SUPPORTED_PROTOCOL_VERSIONS, `notifications/initialized`). It also records the negotiated version,
 * which the 1.x client does not expose.
 */
class PinnedClient extends Client {
  negotiatedVersion: string | undefined;
  readonly #offered: Revision;

  constructor(offered: Revision) {
    super({ name: 'sdk-v1-interop', version: '1.0.0' });
    this.#offered = offered;
  }

  override async request<T extends AnySchema>(
    request: ClientRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    if (request.method !== 'initialize') return super.request(request, resultSchema, options);
    const pinned = { ...request, params: { ...request.params, protocolVersion: this.#offered } };
    const result = await super.request(pinned, resultSchema, options);
    this.negotiatedVersion = (result as { protocolVersion?: string }).protocolVersion;
    return result;
  }
}

describe.each(REVISIONS)('SDK 1.x client -> toolwire server over stdio at %s', (version) => {
  let client: PinnedClient;

  beforeAll(async () => {
    client = new PinnedClient(version);
    await client.connect(new StdioClientTransport(toolwireServeCommand()));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('negotiates the offered revision and sees serverInfo shaped for it', () => {
    expect(client.negotiatedVersion).toBe(version);
    expect(client.getServerVersion()).toEqual(expectedServerInfo(version));
    expect(client.getServerCapabilities()).toEqual(expectedFixtureCapabilities(version));
    expect(client.getInstructions()).toBe('fixture');
  });

  it('lists every tool across pages, with only the fields the revision defines', async () => {
    const tools: Tool[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      pageSizes.push(page.tools.length);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pageSizes).toEqual([3, 3, 3, 3, 3]);
    expect(tools.map((t) => t.name)).toEqual(FIXTURE_TOOL_NAMES);
    expect(tools[0]).toEqual(expectedEchoTool(version));
    expect(tools[1]).toEqual(expectedAddTool(version));
    expect(tools.some((t) => 'title' in t)).toBe(atLeast(version, '2025-06-18'));
    expect(tools.some((t) => 'outputSchema' in t)).toBe(atLeast(version, '2025-06-18'));
    expect(tools.some((t) => 'icons' in t)).toBe(version === '2025-11-25');
  });

  it('calls echo', async () => {
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi there' } })).toEqual({
      content: [{ type: 'text', text: 'hi there' }],
    });
  });

  it('round-trips text with newlines, U+2028/U+2029, NUL, quotes and astral characters', async () => {
    const text = 'a\nb\r\nc\u2028d\u2029e\u0000f"\\😀';
    expect(await client.callTool({ name: 'echo', arguments: { text } })).toEqual({
      content: [{ type: 'text', text }],
    });
  });

  it('calls add: structuredContent only from 2025-06-18, checked by the SDK against the outputSchema', async () => {
    // The 1.x client caches output validators from the last tools/list page it saw; page 1 has `add`.
    await client.listTools();
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual(
      expectedAddResult(version),
    );
  });

  it('receives every content type the revision defines, converted where it lacks one', async () => {
    const result = await client.callTool({ name: 'all_content', arguments: {} });
    expect(result).toEqual({ content: expectedAllContent(version) });
  });

  it('reports progress through the onprogress option', async () => {
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, ms: 100 } }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done after 3' }] });
    // On the wire toolwire writes all three notifications, then the response. But SDK 1.x dispatches
    // notifications on a microtask while it settles responses (and drops the progress handler)
    // synchronously, so a notification read in the same stdout chunk as the response is lost: the
    // last ones may be (the last two on a busy machine; 100 ms apart, the first one comes alone). The ones
    // received must still be exactly the first ones, shaped for the revision.
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(expectedProgress(version, 3).slice(0, seen.length));
  });

  it('gets a tool failure as an isError result', async () => {
    expect(await client.callTool({ name: 'throws', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Tool throws failed: kaboom' }],
      isError: true,
    });
  });

  it('gets McpError -32602 for an unknown tool', async () => {
    const error: unknown = await client
      .callTool({ name: 'no_such_tool', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe('MCP error -32602: Unknown tool: no_such_tool');
  });

  it('cancels a running tool: the server handler sees the reason the SDK sent', async () => {
    const controller = new AbortController();
    // Abort once the handler is waiting: it says so with a progress notification.
    const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop now'),
    });
    await expect(call).rejects.toThrow('stop now');
    // notifications/cancelled and the next request travel in order on the same pipe.
    await expect
      .poll(async () => client.callTool({ name: 'last_cancel', arguments: {} }))
      .toEqual({
        content: [{ type: 'text', text: 'stop now' }],
      });
  });

  it('pings', async () => {
    expect(await client.ping()).toEqual({});
  });
});

describe('SDK 1.x client <- toolwire server over stdio: requests the server sends', () => {
  it('withdraws the first question it sent when the call is cancelled: the SDK handler is aborted', async () => {
    // SDK 1.x ignores notifications/cancelled whose requestId is falsy (`_oncancel`), so a first request
    // numbered 0 could never be withdrawn: the dialog stayed in front of the person.
    const client = new Client(
      { name: 'sdk-v1-interop', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    let asked!: (signal: AbortSignal) => void;
    const question = new Promise<AbortSignal>((resolve) => (asked = resolve));
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      asked(extra.signal);
      // Answered only once withdrawn (toolwire drops the answer to a request it cancelled).
      return new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
      });
    });
    await client.connect(new StdioClientTransport(toolwireServeCommand()));
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'ask', arguments: {} }, undefined, { signal: controller.signal });
      const signal = await question;
      controller.abort('never mind');
      await expect(call).rejects.toThrow('never mind');
      const reason = signal.aborted
        ? signal.reason
        : await new Promise((resolve) => {
            signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
          });
      expect(String(reason)).toContain('never mind');
    } finally {
      await client.close();
    }
  });
});
