// The answers of a toolwire client's sampling and roots handlers are checked before they are sent, as its
// elicitation answers are: a raw server over stdio (the hostile fixture's `ask`) that asks for a message or
// the roots gets -32603 naming what is wrong, never the malformed answer, and the client's onError hears
// why; in each handshake-era revision, a sampling answer is what that revision's CreateMessageResult is.
// In the stateless era the call fails with INVALID_RESULT and the server's tool never sees the answer.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import type { CreateMessageResult, Root } from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer } from './_setup.js';

const ASKER = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const question = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };
const reply = (content: unknown) => ({ role: 'assistant', model: 'm', content }) as CreateMessageResult;

/**
 * A client of the asker fixture speaking `revision` over stdio, whose handlers answer what `answers` holds
 * at the time; `errors` is what its onError heard.
 */
async function askerClient(revision: string) {
  const answers: { sampling?: unknown; roots?: unknown } = {};
  const errors: string[] = [];
  const options: ClientOptions = {
    sampling: () => answers.sampling as CreateMessageResult,
    roots: () => answers.roots as Root[],
    onError: (error) => errors.push(error.message),
  };
  const client = new Client({ name: 'host', version: '1.0.0' }, options);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [ASKER, '--revision', revision],
      stderr: 'ignore',
    }),
  );
  cleanup.push(() => client.close());
  expect(client.protocolVersion).toBe(revision);
  /** What the server's question got back: `{result}` or `{error}`. */
  const ask = async (method: string, params?: unknown) => {
    const result = await client.callTool('ask', params === undefined ? { method } : { method, params });
    return JSON.parse((result.content[0] as { text: string }).text) as {
      result?: unknown;
      error?: { code: number; message: string };
    };
  };
  return { answers, errors, ask };
}

/** Sampling answers no revision allows, or not the revision named, and the words of the -32603. */
const BAD_SAMPLING: [string, string, unknown, RegExp][] = [
  [
    'no model, content not a block',
    '2025-11-25',
    { role: 'assistant', content: 'x' },
    /model must be a string/,
  ],
  ['a text block without text', '2025-11-25', reply({ type: 'text' }), /content is a text block without/],
  ['a block of no content type', '2025-11-25', reply({ type: 'video' }), /"video", which is no sampling/],
  [
    'an image block without mimeType',
    '2025-11-25',
    reply({ type: 'image', data: 'AA==' }),
    /content is an image block without a string data and mimeType/,
  ],
  [
    'a tool_use without input',
    '2025-11-25',
    reply([{ type: 'tool_use', id: 't1', name: 'x' }]),
    /content\[0\] is a tool_use block without a string id and name and an object input/,
  ],
  [
    'a tool_result holding a bad block',
    '2025-11-25',
    reply([{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text' }] }]),
    /content\[0\] is a tool_result block whose content\[0\] is a text block without a string text/,
  ],
  [
    'a list of blocks before 2025-11-25',
    '2025-06-18',
    reply([{ type: 'text', text: 'hi' }]),
    /content must be one block in protocol version 2025-06-18, not a list/,
  ],
  [
    'a tool_use block before 2025-11-25',
    '2025-06-18',
    reply({ type: 'tool_use', id: 't1', name: 'x', input: {} }),
    /"tool_use", which is no sampling content type in 2025-06-18/,
  ],
  [
    'an image block whose data is not base64',
    '2025-11-25',
    reply({ type: 'image', data: 'AA=A', mimeType: 'image/png' }),
    /content is an image block whose data is not base64 \(RFC 4648, padded\)/,
  ],
  [
    'more than 1000 blocks',
    '2025-11-25',
    reply(Array.from({ length: 1001 }, () => ({ type: 'text', text: 'x' }))),
    /content holds 1001 blocks, more than the 1000 a sampling answer may hold/,
  ],
  [
    'more than 1000 blocks with those of its tool_result',
    '2025-11-25',
    reply([
      { type: 'text', text: 'x' },
      {
        type: 'tool_result',
        toolUseId: 't1',
        content: Array.from({ length: 999 }, () => ({ type: 'text', text: 'x' })),
      },
    ]),
    /content holds 1001 blocks, more than the 1000/,
  ],
  [
    'audio in 2024-11-05',
    '2024-11-05',
    reply({ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }),
    /"audio", which is no sampling content type in 2024-11-05/,
  ],
];

describe("a toolwire client's sampling answers", () => {
  it.each(BAD_SAMPLING)(
    'are -32603 to the server when they hold %s (%s), and onError hears why',
    async (_what, revision, answer, words) => {
      const { answers, errors, ask } = await askerClient(revision);
      answers.sampling = answer;
      const { result, error } = await ask('sampling/createMessage', question);
      expect(result).toBeUndefined();
      expect(error).toEqual({
        code: -32603,
        message: expect.stringMatching(/^Internal error: The sampling handler's answer is invalid: /),
      });
      expect(error?.message).toMatch(words);
      expect(errors).toEqual([expect.stringMatching(words)]);
    },
  );

  it("go out when they are the revision's CreateMessageResult", async () => {
    const latest = await askerClient('2025-11-25');
    const blocks = [
      { type: 'text', text: 'calling' },
      { type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_result', toolUseId: 't0', content: [{ type: 'text', text: 'sunny' }], isError: false },
    ];
    latest.answers.sampling = { ...reply(blocks), stopReason: 'toolUse' };
    expect(await latest.ask('sampling/createMessage', question)).toEqual({
      result: { ...reply(blocks), stopReason: 'toolUse' },
    });
    const older = await askerClient('2025-06-18');
    older.answers.sampling = reply({ type: 'audio', data: 'AA==', mimeType: 'audio/wav' });
    expect((await older.ask('sampling/createMessage', question)).result).toEqual(older.answers.sampling);
    expect([...latest.errors, ...older.errors]).toEqual([]);
  });
});

describe("a toolwire client's roots", () => {
  it('are -32603 to the server unless each is a file:// uri with an optional string name, at most 1000 of them, of at most 4096 and 1024 characters', async () => {
    const long = (length: number) => `file:///${'a'.repeat(length - 8)}`;
    const { answers, errors, ask } = await askerClient('2025-11-25');
    const bad: [unknown, RegExp][] = [
      [[{ uri: 'http://not-file/', name: 'x' }], /roots\[0\]\.uri must start with file:\/\//],
      [[{ uri: 'file:///a' }, { uri: 'file:///b', name: 5 }], /roots\[1\]\.name must be a string/],
      [[{ uri: 7 }], /roots\[0\]\.uri must be a string/],
      ['file:///a', /roots must be an array/],
      [
        Array.from({ length: 1001 }, (_, i) => ({ uri: `file:///r${i}` })),
        /1001 roots, more than the 1000 a client sends/,
      ],
      [
        [{ uri: 'file:///a', name: 'n'.repeat(1025) }],
        /roots\[0\]\.name is 1025 characters long, more than the 1024 a root's name may be/,
      ],
      [
        [{ uri: 'file:///a' }, { uri: long(4097) }],
        /roots\[1\]\.uri is 4097 characters long, more than the 4096 a root's uri may be/,
      ],
    ];
    for (const [roots, words] of bad) {
      answers.roots = roots;
      const { result, error } = await ask('roots/list');
      expect(result).toBeUndefined();
      expect(error?.code).toBe(-32603);
      expect(error?.message).toMatch(/^Internal error: The roots handler's answer is invalid: /);
      expect(error?.message).toMatch(words);
    }
    expect(errors).toHaveLength(bad.length);
    answers.roots = [{ uri: 'file:///work', name: 'n'.repeat(1024) }, { uri: long(4096) }];
    expect(await ask('roots/list')).toEqual({ result: { roots: answers.roots } });
    expect(errors).toHaveLength(bad.length);
  });
});

describe('in the stateless era (input_required)', () => {
  it('a sampling or roots answer the spec does not allow fails the call, and the tool never sees it', async () => {
    const server = new Server({ name: 'asks', version: '1.0.0' });
    const seen: unknown[] = [];
    server.tool('roots', {}, async (_args, ctx) => {
      seen.push(await ctx.listRoots());
      return text('listed');
    });
    server.tool('sample', {}, async (_args, ctx) => {
      seen.push(await ctx.sample(question as never));
      return text('sampled');
    });
    const { client } = await linkServer(server, {
      protocolVersion: '2026-07-28',
      roots: [{ uri: 'https://example.com/' }],
      sampling: () => reply({ type: 'text', text: 5 }),
    });
    cleanup.push(() => client.close());
    await expect(client.callTool('roots')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message: "The roots handler's answer is invalid: roots[0].uri must start with file://",
    });
    await expect(client.callTool('sample')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message: "The sampling handler's answer is invalid: content is a text block without a string text",
    });
    expect(seen).toEqual([]);
  });

  it('a sampling answer of more than 1000 blocks or a root name of more than 1024 characters fails the call', async () => {
    const server = new Server({ name: 'asks', version: '1.0.0' });
    const seen: unknown[] = [];
    server.tool('roots', {}, async (_args, ctx) => {
      seen.push(await ctx.listRoots());
      return text('listed');
    });
    server.tool('sample', {}, async (_args, ctx) => {
      seen.push(await ctx.sample(question as never));
      return text('sampled');
    });
    let blocks = 1001;
    const { client } = await linkServer(server, {
      protocolVersion: '2026-07-28',
      roots: () => [{ uri: 'file:///a', name: 'n'.repeat(blocks === 1001 ? 1025 : 1024) }],
      sampling: () => reply(Array.from({ length: blocks }, () => ({ type: 'text', text: 'x' }))),
    });
    cleanup.push(() => client.close());
    await expect(client.callTool('roots')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message:
        "The roots handler's answer is invalid: roots[0].name is 1025 characters long, more than the 1024 a root's name may be",
    });
    await expect(client.callTool('sample')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message:
        "The sampling handler's answer is invalid: content holds 1001 blocks, more than the 1000 a sampling answer may hold",
    });
    expect(seen).toEqual([]);
    blocks = 1000;
    expect((await client.callTool('roots')).content).toEqual([{ type: 'text', text: 'listed' }]);
    expect((await client.callTool('sample')).content).toEqual([{ type: 'text', text: 'sampled' }]);
    expect(seen).toHaveLength(2);
  });
});
