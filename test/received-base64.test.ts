// Binary data a client receives is checked as a toolwire server checks what it sends: an image's or an
// audio's `data`, an embedded resource's `blob` (tools/call), a resource's `blob` (resources/read) and a
// prompt message's image `data` (prompts/get) must be base64 (RFC 4648, padded, its padding bits zero), or
// the request fails with ClientError INVALID_RESULT naming the block. The server is a raw stdio process
// (test/fixtures/bad-base64-server.mjs), since toolwire's own refuses to send such data; a gateway in front
// of it answers its caller that the upstream failed the call, and audits the call as an error (the data
// passed as the upstream's, the gateway's own server refused it as its own tool's bug, and the audit said ok).
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, ClientError } from '../src/client/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../src/protocol/errors.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { startedGateway } from './_served-gateway.js';

const BAD_BASE64 = fileURLToPath(new URL('./fixtures/bad-base64-server.mjs', import.meta.url));

/** The fixture's tools whose binary data is not base64, with the block that is not and what is wrong. */
const REFUSED: [tool: string, index: number, problem: string][] = [
  ['image_not_base64', 1, 'an image block whose data is not base64 (RFC 4648, padded)'],
  ['audio_base64url', 0, 'an audio block whose data is not base64 (RFC 4648, padded)'],
  ['blob_unpadded', 0, 'an embedded resource whose blob is not base64 (RFC 4648, padded)'],
  ['image_padding_bits', 0, 'an image block whose data is not base64 (RFC 4648, padded)'],
];

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function clientOfFixture(): Promise<Client> {
  const client = new Client({ name: 'received-base64', version: '1' }, { protocolVersion: '2025-11-25' });
  cleanup.push(() => client.close());
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BAD_BASE64], stderr: 'ignore' }),
  );
  return client;
}

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('a client receiving binary data that is not base64, over stdio', () => {
  it.each(REFUSED)(
    'fails tools/call %s with INVALID_RESULT naming content[%i]',
    async (tool, index, problem) => {
      const client = await clientOfFixture();
      const error = await failure(client.callTool(tool));
      expect(error).toBeInstanceOf(ClientError);
      expect(error).toMatchObject({
        code: LocalErrorCode.InvalidResult,
        message: `tools/call ${tool} returned an invalid result: content[${index}] is ${problem}`,
        details: { tool, index, problem: `content[${index}] is ${problem}` },
      });
    },
  );

  it('fails resources/read of a blob that is not base64 with INVALID_RESULT, and takes base64 as it came', async () => {
    const client = await clientOfFixture();
    const error = await failure(client.readResource('file:///bad.bin'));
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: LocalErrorCode.InvalidResult,
      message:
        'resources/read file:///bad.bin returned an invalid result: contents[0] has a blob that is not base64 (RFC 4648, padded)',
      details: {
        uri: 'file:///bad.bin',
        index: 0,
        problem: 'has a blob that is not base64 (RFC 4648, padded)',
      },
    });
    // The connection goes on; base64 images, audio and blobs pass as they came.
    expect(await client.readResource('file:///good.bin')).toEqual({
      contents: [{ uri: 'file:///good.bin', mimeType: 'image/png', blob: 'iVBORw0KGgo=' }],
    });
    const result = await client.callTool('good');
    expect(result.isError).toBeUndefined();
    expect(result.content.map((block) => block.type)).toEqual(['image', 'audio', 'resource']);
  });
});

describe('a client receiving a prompt whose image data is not base64, over stdio', () => {
  it('fails prompts/get with INVALID_RESULT naming messages[0], and takes base64 as it came', async () => {
    const client = await clientOfFixture();
    const error = await failure(client.getPrompt('picture_not_base64'));
    expect(error).toBeInstanceOf(ClientError);
    const problem = 'has content that is an image block whose data is not base64 (RFC 4648, padded)';
    expect(error).toMatchObject({
      code: LocalErrorCode.InvalidResult,
      message: `prompts/get picture_not_base64 returned an invalid result: messages[0] ${problem}`,
      details: { prompt: 'picture_not_base64', index: 0, problem },
    });
    expect((await client.getPrompt('picture')).messages).toEqual([
      { role: 'user', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } },
    ]);
  });
});

describe('a gateway in front of a server sending binary data that is not base64', () => {
  async function gatewayCaller(): Promise<{ gateway: Gateway; caller: Client }> {
    const gateway = await startedGateway(
      {
        upstreams: { bad: { command: process.execPath, args: [BAD_BASE64], stderr: 'ignore' } },
        policy: { default: 'allow' },
      },
      cleanup,
    );
    const [clientEnd, serverEnd] = createLinkedPair();
    await gateway.server.connect(serverEnd);
    const caller = new Client({ name: 'model', version: '1' }, { protocolVersion: '2025-11-25' });
    cleanup.push(() => caller.close());
    await caller.connect(clientEnd);
    return { gateway, caller };
  }

  it("answers its caller's call with an isError result saying the upstream failed, audited as an error", async () => {
    const { gateway, caller } = await gatewayCaller();
    for (const [tool, index, problem] of REFUSED) {
      const result = await caller.callTool(`bad__${tool}`);
      expect(result).toEqual({
        isError: true,
        content: [
          {
            type: 'text',
            text: `Upstream bad failed to run ${tool}: tools/call ${tool} returned an invalid result: content[${index}] is ${problem}`,
          },
        ],
      });
    }
    expect((await caller.callTool('bad__good')).isError).toBeUndefined();
    const audited = (await gateway.audit.list()).filter((record) => record.kind === 'call');
    expect(audited.map((record) => [record.tool, record.outcome])).toEqual([
      ...REFUSED.map(([tool]) => [tool, 'error']),
      ['good', 'ok'],
    ]);
  });

  it("answers its caller's resources/read and prompts/get with -32603 naming the upstream and its invalid result", async () => {
    const { caller } = await gatewayCaller();
    const error = await failure(caller.readResource('file:///bad.bin'));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: ErrorCode.InternalError,
      message:
        'Upstream bad failed to read file:///bad.bin: resources/read file:///bad.bin returned an invalid result: contents[0] has a blob that is not base64 (RFC 4648, padded)',
    });
    // A prompt's: the same, as a tool call's failure names the upstream and the upstream's tool.
    expect(await failure(caller.getPrompt('bad__picture_not_base64'))).toMatchObject({
      code: ErrorCode.InternalError,
      message:
        'Upstream bad failed to get prompt picture_not_base64: prompts/get picture_not_base64 returned an invalid result: messages[0] has content that is an image block whose data is not base64 (RFC 4648, padded)',
    });
    expect((await caller.readResource('file:///good.bin')).contents).toEqual([
      { uri: 'file:///good.bin', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
    ]);
  });
});
