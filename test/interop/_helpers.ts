// Shared by the interop suites: how to spawn the toolwire fixture server and the official-SDK fixture
// servers over stdio, and what the toolwire fixture server (test/fixtures/protocol-server.mjs) puts on
// the wire at each handshake-era revision.
import { fileURLToPath } from 'node:url';
import { serverCommand } from '../_setup.js';

/** The handshake-era revisions, oldest first. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type Revision = (typeof REVISIONS)[number];

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

export const PROTOCOL_FIXTURE = path('../fixtures/protocol-server.mjs');
export const SDK_SERVER_V1 = path('../fixtures/sdk-server-v1.mjs');
export const SDK_SERVER_V2 = path('../fixtures/sdk-server-v2.mjs');
/** The command that serves a toolwire server module over stdio: `bin/toolwire.mjs serve <module>`. */
export function toolwireServeCommand(module: string = PROTOCOL_FIXTURE): { command: string; args: string[] } {
  return serverCommand(module);
}

/** The command that runs an official-SDK fixture server (a self-contained script). */
export function sdkServerCommand(script: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [script] };
}

/** Whether revision `version` is `since` or later (revision ids are ISO dates). */
export const atLeast = (version: Revision, since: Revision): boolean => version >= since;

/** The capabilities protocol-server.mjs declares at `version` (`completions` exists from 2025-03-26). */
export function expectedFixtureCapabilities(version: Revision): Record<string, unknown> {
  return {
    tools: { listChanged: true },
    logging: {},
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    ...(atLeast(version, '2025-03-26') ? { completions: {} } : {}),
  };
}

/** Every tool of protocol-server.mjs, in registration order (= tools/list order). */
export const FIXTURE_TOOL_NAMES = [
  'echo',
  'add',
  'structured_only',
  'bad_output',
  'throws',
  'all_content',
  'slow',
  'wait_for_cancel',
  'logs',
  'ask',
  'sample',
  'roots',
  'last_cancel',
  'add_tools',
  'meta',
];

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The fixture's `echo` tool as listed at `version`. */
export function expectedEchoTool(version: Revision): Record<string, unknown> {
  return {
    name: 'echo',
    ...(atLeast(version, '2025-06-18') ? { title: 'Echo' } : {}),
    ...(atLeast(version, '2025-11-25')
      ? { icons: [{ src: 'data:image/png;base64,' + PIXEL, mimeType: 'image/png' }] }
      : {}),
    description: 'Echoes text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    ...(atLeast(version, '2025-03-26') ? { annotations: { readOnlyHint: true } } : {}),
    ...(atLeast(version, '2025-06-18') ? { _meta: { 'com.example/x': 1 } } : {}),
  };
}

/** The fixture's `add` tool as listed at `version` (outputSchema from 2025-06-18). */
export function expectedAddTool(version: Revision): Record<string, unknown> {
  return {
    name: 'add',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    ...(atLeast(version, '2025-06-18')
      ? {
          outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        }
      : {}),
  };
}

/** The result of `add {a: 2, b: 3}` at `version` (structuredContent from 2025-06-18). */
export function expectedAddResult(version: Revision): Record<string, unknown> {
  return {
    content: [{ type: 'text', text: '{"sum":5}' }],
    ...(atLeast(version, '2025-06-18') ? { structuredContent: { sum: 5 } } : {}),
  };
}

/**
 * The content of `all_content` at `version`: audio from 2025-03-26 (before: an embedded resource with
 * the bytes as `blob`), resource_link from 2025-06-18 (before: a text block), `_meta` and
 * `annotations.lastModified` from 2025-06-18, icons on the link from 2025-11-25.
 */
export function expectedAllContent(version: Revision): Array<Record<string, unknown>> {
  const meta = atLeast(version, '2025-06-18');
  return [
    {
      type: 'text',
      text: 'hello',
      annotations: {
        audience: ['user'],
        priority: 0.5,
        ...(meta ? { lastModified: '2025-01-01T00:00:00Z' } : {}),
      },
      ...(meta ? { _meta: { k: 1 } } : {}),
    },
    { type: 'image', data: PIXEL, mimeType: 'image/png' },
    atLeast(version, '2025-03-26')
      ? { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }
      : {
          type: 'resource',
          resource: { uri: 'data:audio/wav;base64,', mimeType: 'audio/wav', blob: 'UklGRg==' },
        },
    atLeast(version, '2025-06-18')
      ? {
          type: 'resource_link',
          name: 'a.txt',
          uri: 'file:///a.txt',
          description: 'A file',
          mimeType: 'text/plain',
          ...(atLeast(version, '2025-11-25') ? { icons: [{ src: 'data:,' }] } : {}),
        }
      : { type: 'text', text: 'Resource link: a.txt file:///a.txt (text/plain): A file' },
    {
      type: 'resource',
      resource: {
        uri: 'file:///b.txt',
        mimeType: 'text/plain',
        text: 'bee',
        ...(meta ? { _meta: { m: 1 } } : {}),
      },
    },
  ];
}

/** The progress `slow {steps}` reports at `version` (`message` from 2025-03-26). */
export function expectedProgress(version: Revision, steps: number): Array<Record<string, unknown>> {
  return Array.from({ length: steps }, (_, i) => ({
    progress: i + 1,
    total: steps,
    ...(atLeast(version, '2025-03-26') ? { message: `step ${i + 1}` } : {}),
  }));
}

/** The serverInfo the fixture sends at `version` (title from 2025-06-18). */
export function expectedServerInfo(version: Revision): Record<string, unknown> {
  return {
    name: 'protocol-fixture',
    version: '1.0.0',
    ...(atLeast(version, '2025-06-18') ? { title: 'Protocol fixture' } : {}),
  };
}
