// The questions a tool asks (`ctx.sample()`, `ctx.elicit()`) reach each handshake-era client in the shapes
// of the revision it negotiated, as that client receives them (its handler records the params): before
// 2025-11-25 a sampling message holds one block, not a list, and no `tool_use`, `tool_result` or tools;
// 2024-11-05 has no audio; a 2025-06-18 form has no `mode`, no `default` but a boolean's, its titled
// single-select as `enum` + `enumNames`, and no multi-select or URL mode. What cannot be sent fails the
// tool's question with a clear error, and the client is asked nothing. A 2025-11-25 client gets what the
// tool wrote. And a form without `requestedSchema` goes out with an empty one, in both eras; a deprecated
// `includeContext` reaches only a client that declared `sampling.context` (2025-11-25 on).
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  isJsonObject,
  type CreateMessageParams,
  type ElicitParams,
  type ElicitResult,
  type JsonObject,
  type JsonRpcMessage,
  type Revision,
} from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const BEFORE_TOOLS = ['2024-11-05', '2025-03-26', '2025-06-18'] as const;
const TAKES_PARAMS = {
  inputSchema: {
    type: 'object',
    properties: { params: { type: 'object' } },
    required: ['params'],
  },
} as const;

/**
 * A tool `sample` / `elicit` asks its client what the call's `params` say, answered by a client of
 * `protocolVersion` that records what it receives (and accepts a form with `content`); the call's result
 * text and the recorded questions.
 */
async function asked(
  protocolVersion: Revision,
  tool: 'sample' | 'elicit',
  params: JsonObject,
  declared: JsonObject = {},
  content: ElicitResult['content'] = {},
): Promise<{ text: string; isError: boolean; got: JsonObject[] }> {
  const server = new Server({ name: 'asker', version: '1.0.0' });
  server.tool('sample', TAKES_PARAMS, async (args, ctx) => {
    const answer = await ctx.sample(args.params as unknown as CreateMessageParams);
    return text(JSON.stringify(answer.content));
  });
  server.tool('elicit', TAKES_PARAMS, async (args, ctx) => {
    const answer = await ctx.elicit(args.params as unknown as ElicitParams);
    return text(`${answer.action} ${JSON.stringify(answer.content ?? {})}`);
  });
  const got: JsonObject[] = [];
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  // The capabilities `declared` go out in the initialize as they are, whatever the revision (as the official
  // SDK clients send them; a toolwire client leaves out what its revision lacks).
  const send = clientEnd.send.bind(clientEnd);
  clientEnd.send = (message: JsonRpcMessage | JsonRpcMessage[]) => {
    const m = message as unknown as JsonObject;
    if (m.method !== 'initialize' || !isJsonObject(m.params)) return send(message);
    const params = { ...m.params, capabilities: { ...(m.params.capabilities as JsonObject), ...declared } };
    return send({ ...m, params } as unknown as JsonRpcMessage);
  };
  const client = new Client(
    { name: 'asker-client', version: '1.0.0' },
    {
      protocolVersion,
      capabilities: declared,
      sampling: (p) => (
        got.push(p as unknown as JsonObject),
        { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
      ),
      elicitation: (p) => (got.push(p as unknown as JsonObject), { action: 'accept', content }),
      validateElicitation: false,
    },
  );
  await client.connect(clientEnd);
  const linked = { client, close: () => client.close().then(() => server.close()) };
  const result = await linked.client.callTool(tool, { params });
  const first = result.content[0] as { text?: string } | undefined;
  return { text: first?.text ?? '', isError: result.isError === true, got };
}

describe('ctx.sample() to a handshake-era client', () => {
  const LISTED = {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }], _meta: { turn: 1 } },
      { role: 'assistant', content: { type: 'text', text: 'yes?', _meta: { block: 2 } } },
    ],
    maxTokens: 5,
  };

  it.each(BEFORE_TOOLS)(
    'sends %s one block per message, not a list of one, and no message _meta',
    async (v) => {
      const { text: said, got } = await asked(v, 'sample', LISTED);
      expect(said).toBe('{"type":"text","text":"ok"}');
      const block =
        v === '2025-06-18'
          ? { type: 'text', text: 'yes?', _meta: { block: 2 } }
          : { type: 'text', text: 'yes?' };
      expect(got).toEqual([
        {
          messages: [
            { role: 'user', content: { type: 'text', text: 'hi' } },
            { role: 'assistant', content: block },
          ],
          maxTokens: 5,
        },
      ]);
    },
  );

  it('sends 2025-11-25 what the tool wrote: lists, tools, tool use', async () => {
    const params = {
      ...LISTED,
      messages: [
        ...LISTED.messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'look', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: 'found' }] },
            { type: 'text', text: 'and?' },
          ],
        },
      ],
      tools: [{ name: 'look', inputSchema: { type: 'object' } }],
      toolChoice: { mode: 'auto' },
    };
    const { isError, got } = await asked('2025-11-25', 'sample', params, { sampling: { tools: {} } });
    expect(isError).toBe(false);
    expect(got).toEqual([params]);
  });

  const refusals: [string, JsonObject, RegExp][] = [
    [
      'a message of two blocks',
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      /messages\[0\] holds 2 content blocks; before 2025-11-25 a sampling message holds one/,
    ],
    ['a message of no blocks', { role: 'user', content: [] }, /messages\[0\] holds 0 content blocks/],
    [
      'tool_use content',
      { role: 'assistant', content: { type: 'tool_use', id: 'c1', name: 'look', input: {} } },
      /messages\[0\] holds tool_use content, which exists only from 2025-11-25/,
    ],
    [
      'tool_result content',
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', content: [] }] },
      /messages\[0\] holds tool_result content, which exists only from 2025-11-25/,
    ],
  ];
  for (const v of BEFORE_TOOLS) {
    it.each(refusals)(`refuses ${v} %s, and asks the client nothing`, async (_what, message, words) => {
      const { text: said, isError, got } = await asked(v, 'sample', { messages: [message], maxTokens: 5 });
      expect(isError).toBe(true);
      expect(said).toMatch(`sampling/createMessage cannot be sent to a client of protocol version ${v}: `);
      expect(said).toMatch(words);
      expect(got).toEqual([]);
    });

    it(`refuses ${v} tools, even when the client declared sampling.tools`, async () => {
      const params = { ...LISTED, tools: [{ name: 'look', inputSchema: { type: 'object' } }] };
      const { text: said, isError, got } = await asked(v, 'sample', params, { sampling: { tools: {} } });
      expect(isError).toBe(true);
      expect(said).toBe(
        `The client declared sampling.tools, but its protocol version ${v} has none, so sampling/createMessage cannot be sent`,
      );
      expect(got).toEqual([]);
    });
  }

  it('refuses audio to a 2024-11-05 client, and sends it to a 2025-03-26 one', async () => {
    const audio = { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' };
    const params = { messages: [{ role: 'user', content: audio }], maxTokens: 5 };
    const old = await asked('2024-11-05', 'sample', params);
    expect(old.isError).toBe(true);
    expect(old.text).toMatch(/messages\[0\] holds audio content, which exists only from 2025-03-26/);
    expect(old.got).toEqual([]);
    expect((await asked('2025-03-26', 'sample', params)).got).toEqual([params]);
  });
});

describe('ctx.elicit() to a 2025-06-18 client', () => {
  const choices = [
    { const: 'r', title: 'Red' },
    { const: 'g', title: 'Green' },
  ];
  const FORM = {
    message: 'Details?',
    requestedSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', minLength: 1, default: 'Ada' },
        age: { type: 'integer', minimum: 0, default: 36 },
        subscribe: { type: 'boolean', default: true },
        size: { type: 'string', enum: ['s', 'm'], default: 's' },
        color: { type: 'string', title: 'Colour', oneOf: choices, default: 'r' },
        shade: { type: 'string', anyOf: choices },
      },
      required: ['name', 'color'],
    },
  };
  const ANSWER = { name: 'Ada', color: 'g' };

  it('sends its form as 2025-06-18 has it: no $schema, defaults on booleans alone, enumNames', async () => {
    const {
      text: said,
      isError,
      got,
    } = await asked('2025-06-18', 'elicit', { ...FORM, mode: 'form' }, {}, ANSWER);
    expect(got).toEqual([
      {
        message: 'Details?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name', minLength: 1 },
            age: { type: 'integer', minimum: 0 },
            subscribe: { type: 'boolean', default: true },
            size: { type: 'string', enum: ['s', 'm'] },
            color: { type: 'string', title: 'Colour', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
            shade: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
          },
          required: ['name', 'color'],
        },
      },
    ]);
    // The answer is checked against the form the tool wrote (its oneOf).
    expect(isError).toBe(false);
    expect(said).toBe('accept {"name":"Ada","color":"g"}');
  });

  it('sends a 2025-11-25 client the form as the tool wrote it', async () => {
    const { got } = await asked('2025-11-25', 'elicit', { ...FORM, mode: 'form' }, {}, ANSWER);
    expect(got).toEqual([{ ...FORM, mode: 'form' }]);
  });

  it('refuses a multi-select, and asks the client nothing', async () => {
    const multi = { type: 'array', items: { type: 'string', enum: ['a', 'b'] } };
    const params = { message: 'Pick', requestedSchema: { type: 'object', properties: { tags: multi } } };
    const { text: said, isError, got } = await asked('2025-06-18', 'elicit', params);
    expect(isError).toBe(true);
    expect(said).toBe(
      'elicitation/create cannot be sent to a client of protocol version 2025-06-18: requestedSchema.properties.tags is a multi-select (type "array"), which exists only from 2025-11-25',
    );
    expect(got).toEqual([]);
  });

  it('refuses URL mode, even when the client declared elicitation.url', async () => {
    const params = { mode: 'url', message: 'Open', url: 'https://example.com/x', elicitationId: 'e1' };
    const {
      text: said,
      isError,
      got,
    } = await asked('2025-06-18', 'elicit', params, { elicitation: { form: {}, url: {} } });
    expect(isError).toBe(true);
    expect(said).toBe(
      'The client declared elicitation.url, but its protocol version 2025-06-18 has none, so elicitation/create cannot be sent',
    );
    expect(got).toEqual([]);
  });
});

describe('a form without requestedSchema', () => {
  const EMPTY = { type: 'object', properties: {} };

  it.each(['2025-06-18', '2025-11-25', '2026-07-28'] as const)(
    'reaches a %s client with an empty one',
    async (v) => {
      const { text: said, got } = await asked(v, 'elicit', { message: 'Sure?' });
      expect(said).toBe('accept {}');
      expect(got).toEqual([{ message: 'Sure?', requestedSchema: EMPTY }]);
    },
  );

  it.each(['2025-11-25', '2026-07-28'] as const)('reaches a %s client with its properties', async (v) => {
    const params = { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', required: [] } };
    const { got } = await asked(v, 'elicit', params);
    expect(got).toEqual([{ ...params, requestedSchema: { ...EMPTY, required: [] } }]);
  });
});

describe("ctx.sample()'s includeContext (deprecated from 2025-11-25: only for a client that declared sampling.context)", () => {
  const WITH_CONTEXT = {
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    maxTokens: 5,
    includeContext: 'thisServer',
  };

  for (const v of ['2025-11-25', '2026-07-28'] as const) {
    it(`is left out for a ${v} client without sampling.context, and sent to one with it`, async () => {
      const without = await asked(v, 'sample', WITH_CONTEXT, { sampling: {} });
      expect(without.got).toHaveLength(1);
      expect(without.got[0]).not.toHaveProperty('includeContext');
      const declared = await asked(v, 'sample', WITH_CONTEXT, { sampling: { context: {} } });
      expect(declared.got[0]).toMatchObject({ includeContext: 'thisServer' });
      const none = await asked(v, 'sample', { ...WITH_CONTEXT, includeContext: 'none' }, { sampling: {} });
      expect(none.got[0]).toMatchObject({ includeContext: 'none' });
    });
  }

  it('is sent to a 2025-06-18 client, whose revision has no sampling.context', async () => {
    const { got } = await asked('2025-06-18', 'sample', WITH_CONTEXT, { sampling: {} });
    expect(got[0]).toMatchObject({ includeContext: 'thisServer' });
  });
});
