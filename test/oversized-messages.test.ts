// Messages over the 4 MiB stdio message cap, between real processes: the line is discarded unread, but
// what its first 4 KiB or its end tell of it names the message. An answer that is too large fails its
// request at once, with MESSAGE_TOO_LARGE, instead of leaving it to its timeout (20–60 s before); a request
// that is too large is refused with its own id (it was refused with a null id, and its sender waited).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { LocalErrorCode, ToolwireError } from '../src/protocol/errors.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { RawWire } from './_wire.js';

const ANSWERS = fileURLToPath(new URL('./fixtures/oversized-answer-server.mjs', import.meta.url));
const MiB = 1024 * 1024;
/** The calls' timeout: what a call that is not failed at once waits for. */
const TIMEOUT_MS = 30_000;
/**
 * The most a failed call may take: reading 64 MiB through a pipe (the id written last) and a node process
 * or two on a loaded 2-core machine, all margin — and far below the timeout it waited for before.
 */
const PROMPT_MS = 8_000;

describe('an answer over the message cap, over stdio', () => {
  it.each(['id_first', 'id_last'])(
    'fails its call at once with MESSAGE_TOO_LARGE (%s), and the connection goes on',
    { timeout: TIMEOUT_MS + 15_000 },
    async (tool) => {
      const errors: Error[] = [];
      const client = new Client(
        { name: 'oversized', version: '1.0.0' },
        { protocolVersion: '2025-11-25', onError: (error) => errors.push(error) },
      );
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [ANSWERS], stderr: 'ignore' }),
      );
      try {
        const started = performance.now();
        const failure = await client.callTool(tool, {}, { timeout: TIMEOUT_MS }).then(
          () => undefined,
          (error: unknown) => error,
        );
        const ms = performance.now() - started;
        expect(failure).toBeInstanceOf(ToolwireError);
        expect(failure).toMatchObject({
          code: LocalErrorCode.MessageTooLarge,
          message: expect.stringMatching(
            /^The answer to request \d+ exceeds the maximum message size of 4194304 bytes \(\d+ bytes read\); it was discarded$/,
          ) as unknown,
          details: { maxMessageSize: 4 * MiB, kind: 'answer' },
        });
        expect(ms).toBeLessThan(PROMPT_MS);
        // The transport's report goes to onError as before.
        expect(errors.map((error) => (error as ToolwireError).code)).toContain(
          LocalErrorCode.MessageTooLarge,
        );
        // The next call is answered (after the rest of the line, read and dropped).
        expect(await client.callTool('echo', {}, { timeout: TIMEOUT_MS })).toMatchObject({
          content: [{ type: 'text', text: 'echo' }],
        });
      } finally {
        await client.close();
      }
    },
  );
});

describe('a request over the message cap, sent to a toolwire stdio server', () => {
  const arguments_ = `{"text":"${'r'.repeat(5 * MiB)}"}`;
  it.each([
    [
      'first',
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":${arguments_}}}`,
    ],
    [
      'last',
      `{"method":"tools/call","params":{"name":"echo","arguments":${arguments_}},"jsonrpc":"2.0","id":"big"}`,
    ],
  ])('is refused with its own id (written %s), and the next request answered', async (_, line) => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.write(line);
    expect(await wire.next(PROMPT_MS)).toEqual({
      jsonrpc: '2.0',
      id: line.startsWith('{"jsonrpc"') ? 7 : 'big',
      error: {
        code: -32600,
        message:
          'Invalid request: the request exceeds the maximum message size of 4194304 bytes; it was discarded',
      },
    });
    expect(await wire.call(8, 'tools/call', { name: 'echo', arguments: { text: 'after' } })).toMatchObject({
      id: 8,
      result: { content: [{ type: 'text', text: 'after' }] },
    });
  });
});
