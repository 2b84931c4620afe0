// The official TypeScript SDK 2.x client (`@modelcontextprotocol/client`) against the toolwire fixture
// server over stdio, at each handshake-era revision.
//
// Pinning: 2.x defaults to `versionNegotiation: { mode: 'legacy' }` (the plain 2025 `initialize`
// handshake, no `server/discover` probe) and offers the first pre-2026 entry of the
// `supportedProtocolVersions` option (default list: 2025-11-25 first). So `supportedProtocolVersions:
// [revision]` makes it offer exactly that revision and accept only it. No 2026-07-28 traffic occurs
// unless `mode: 'auto'` is asked for (tested below: it probes, then falls back to `initialize`).
import { Client, ProtocolError, ProtocolErrorCode, type Progress } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_TOOL_NAMES,
  REVISIONS,
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

const CASES: ReadonlyArray<{ title: string; offered: Revision; pin: boolean }> = [
  { title: 'default options (offers 2025-11-25)', offered: '2025-11-25', pin: false },
  ...REVISIONS.map((revision) => ({
    title: `supportedProtocolVersions: ['${revision}']`,
    offered: revision,
    pin: true,
  })),
];

for (const { title, offered: version, pin } of CASES) {
  describe(`SDK 2.x client -> toolwire server over stdio, ${title}`, () => {
    let client: Client;

    beforeAll(async () => {
      client = new Client(
        { name: 'sdk-v2-interop', version: '2.0.0' },
        pin ? { supportedProtocolVersions: [version] } : {},
      );
      await client.connect(new StdioClientTransport(toolwireServeCommand()));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('negotiates the offered revision in the handshake (initialize) era', () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getServerVersion()).toEqual(expectedServerInfo(version));
      expect(client.getServerCapabilities()).toEqual(expectedFixtureCapabilities(version));
    });

    it('lists every tool (the SDK follows the cursors), shaped for the revision', async () => {
      const { tools, nextCursor } = await client.listTools();
      expect(nextCursor).toBeUndefined();
      expect(tools.map((t) => t.name)).toEqual(FIXTURE_TOOL_NAMES);
      expect(tools[0]).toEqual(expectedEchoTool(version));
      expect(tools[1]).toEqual(expectedAddTool(version));
    });

    it('calls echo and add (structuredContent from 2025-06-18, validated by the SDK)', async () => {
      expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({
        content: [{ type: 'text', text: 'hi' }],
      });
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual(
        expectedAddResult(version),
      );
    });

    it('receives every content type the revision defines', async () => {
      expect(await client.callTool({ name: 'all_content', arguments: {} })).toEqual({
        content: expectedAllContent(version),
      });
    });

    it('reports progress through onprogress', async () => {
      const seen: Progress[] = [];
      const result = await client.callTool(
        { name: 'slow', arguments: { steps: 3, ms: 100 } },
        { onprogress: (progress) => seen.push(progress) },
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'done after 3' }] });
      // Like 1.x, the SDK drops the notifications that arrive in the response's chunk: on a busy machine the
      // last two may be. 100 ms apart, the first one comes alone.
      expect(seen.length).toBeGreaterThanOrEqual(1);
      expect(seen).toEqual(expectedProgress(version, 3).slice(0, seen.length));
    });

    it('gets a tool failure as an isError result and an unknown tool as ProtocolError -32602', async () => {
      expect(await client.callTool({ name: 'throws', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'Tool throws failed: kaboom' }],
        isError: true,
      });
      const error: unknown = await client
        .callTool({ name: 'no_such_tool', arguments: {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
      expect((error as ProtocolError).code).toBe(-32602);
      expect((error as ProtocolError).message).toBe('Unknown tool: no_such_tool');
    });

    it('cancels a running tool: the server handler sees the reason', async () => {
      const controller = new AbortController();
      // Abort once the handler is waiting: it says so with a progress notification.
      const call = client.callTool(
        { name: 'wait_for_cancel', arguments: {} },
        { signal: controller.signal, onprogress: () => controller.abort('stop now') },
      );
      await expect(call).rejects.toThrow();
      await expect
        .poll(async () => client.callTool({ name: 'last_cancel', arguments: {} }))
        .toEqual({
          content: [{ type: 'text', text: 'stop now' }],
        });
    });
  });
}

describe("SDK 2.x client with versionNegotiation mode 'auto' -> toolwire server over stdio", () => {
  it('probes with server/discover and speaks the stateless 2026-07-28 era', async () => {
    const client = new Client(
      { name: 'sdk-v2-interop', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5_000 } } },
    );
    try {
      await client.connect(new StdioClientTransport(toolwireServeCommand()));
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(FIXTURE_TOOL_NAMES);
      expect(await client.callTool({ name: 'echo', arguments: { text: 'after probe' } })).toMatchObject({
        content: [{ type: 'text', text: 'after probe' }],
      });
      expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({
        structuredContent: { sum: 3 },
      });
    } finally {
      await client.close();
    }
  });
});
