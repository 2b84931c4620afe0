// The content blocks a handler returns are checked against the spec's content types (text, image, audio,
// resource_link, resource) and the members each requires: a block of any other type, one missing a required
// member, or binary data that is not base64 (image and audio data, an embedded blob), makes the call an
// `isError` result reported through onToolBug, in every revision; the five types with their members go out
// (shaped for the peer's revision), and a gateway relays them from an upstream of any revision. Raw JSON-RPC
// over the in-memory pair; the gateway's upstream over HTTP.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway } from '../src/gateway/index.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { Server, type ToolReturn } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { rawPeer } from './_raw-peer.js';

const BAD: Record<string, unknown> = {
  unknown_type: [{ type: 'bogus' }],
  text_without_text: [{ type: 'text' }],
  sampling_block: { content: [{ type: 'tool_use', id: '1', name: 'x', input: {} }] },
  image_without_mime: { type: 'image', data: 'AAAA' },
  resource_without_body: { content: [{ type: 'resource', resource: { uri: 'file:///a' } }] },
  link_without_name: {
    content: [
      { type: 'text', text: 'ok' },
      { type: 'resource_link', uri: 'file:///a' },
    ],
  },
  error_with_bad_block: { isError: true, content: [{ type: 'audio', data: 'AAAA' }] },
  image_not_base64: { type: 'image', data: 'not base64!!', mimeType: 'image/png' },
  audio_padding_inside: { content: [{ type: 'audio', data: 'AA=A', mimeType: 'audio/wav' }] },
  blob_unpadded: {
    content: [
      { type: 'text', text: 'ok' },
      { type: 'resource', resource: { uri: 'file:///a', blob: 'AAEC/w' } },
    ],
  },
};

const EXPECTED_BUGS = [
  'Tool unknown_type returned an invalid result: the handler returned an array that is not content blocks: content[0] has type "bogus", which is no content type',
  'Tool text_without_text returned an invalid result: the handler returned an array that is not content blocks: content[0] is a text block without a string text',
  'Tool sampling_block returned an invalid result: the result\'s content[0] has type "tool_use", which is no content type',
  'Tool image_without_mime returned an invalid result: the handler returned a block that is an image block without a string data and mimeType',
  "Tool resource_without_body returned an invalid result: the result's content[0] is an embedded resource without text or blob",
  "Tool link_without_name returned an invalid result: the result's content[1] is a resource_link block without a string uri and name",
  "Tool error_with_bad_block returned an invalid result: the result's content[0] is an audio block without a string data and mimeType",
  'Tool image_not_base64 returned an invalid result: the handler returned a block that is an image block whose data is not base64 (RFC 4648, padded)',
  "Tool audio_padding_inside returned an invalid result: the result's content[0] is an audio block whose data is not base64 (RFC 4648, padded)",
  "Tool blob_unpadded returned an invalid result: the result's content[1] is an embedded resource whose blob is not base64 (RFC 4648, padded)",
];

/** Every content type, with the members it requires. */
const GOOD = [
  { type: 'text', text: 'hello' },
  { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
  { type: 'resource', resource: { uri: 'file:///b.txt', text: 'b' } },
  { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA' } },
];

function blockServer(bugs: string[]): Server {
  const server = new Server(
    { name: 'blocks', version: '1' },
    { onToolBug: (message) => bugs.push(message), sanitize: { checkMedia: false } },
  );
  for (const [name, value] of Object.entries(BAD)) server.tool(name, {}, () => value as ToolReturn);
  server.tool('good', {}, () => ({ content: GOOD }) as ToolReturn);
  return server;
}

describe.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const)(
  'content blocks a handler returns (%s)',
  (version) => {
    it('that break the content types are an isError result and a bug report', async () => {
      const bugs: string[] = [];
      await using peer = await rawPeer(blockServer(bugs), version);
      for (const [index, name] of Object.keys(BAD).entries()) {
        const result = await peer.result('tools/call', { name });
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: EXPECTED_BUGS[index] }]);
      }
      expect(bugs).toEqual(EXPECTED_BUGS);
    });

    it('of every content type go out', async () => {
      const bugs: string[] = [];
      await using peer = await rawPeer(blockServer(bugs), version);
      const result = await peer.result('tools/call', { name: 'good' });
      expect(result.isError).toBeUndefined();
      const content = result.content as JsonObject[];
      expect(content).toHaveLength(GOOD.length);
      expect(content[0]).toEqual(GOOD[0]);
      expect(bugs).toEqual([]);
    });
  },
);

/** Media with the magic bytes of its type, as the gateway's own sanitization checks. */
const MEDIA = [
  { type: 'text', text: 'hello' },
  { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUg==', mimeType: 'image/png' },
  { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IA==', mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
  { type: 'resource', resource: { uri: 'file:///b.txt', text: 'b' } },
  { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA' } },
];

describe.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const)(
  'a gateway relaying an upstream of %s',
  (protocolVersion) => {
    it('passes every content block of that revision on', async () => {
      const upstream = new Server({ name: 'up', version: '1' });
      upstream.tool('blocks', {}, () => ({ content: MEDIA }) as ToolReturn);
      const web = await serveHttp(upstream, { port: 0 });
      const gateway = createGateway(
        { upstreams: { web: { url: web.url, protocolVersion } }, policy: { default: 'allow' } },
        { onLog: () => undefined },
      );
      const client = new Client({ name: 'model', version: '1' }, { protocolVersion: '2025-11-25' });
      try {
        await gateway.start();
        const [clientEnd, serverEnd] = createLinkedPair();
        await gateway.server.connect(serverEnd);
        await client.connect(clientEnd);
        const result = await client.callTool('web__blocks');
        expect(result.isError).toBeUndefined();
        expect(result.content.map((block) => block.type)).toEqual(
          // What the upstream's revision has: audio as an embedded blob and a link as text before 2025-03-26 /
          // 2025-06-18.
          protocolVersion === '2024-11-05'
            ? ['text', 'image', 'resource', 'text', 'resource', 'resource']
            : protocolVersion === '2025-03-26'
              ? ['text', 'image', 'audio', 'text', 'resource', 'resource']
              : ['text', 'image', 'audio', 'resource_link', 'resource', 'resource'],
        );
      } finally {
        await client.close();
        await gateway.close();
        await web.close();
      }
    });
  },
);
