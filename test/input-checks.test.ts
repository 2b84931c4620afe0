// The questions a server asks its client during a call (elicitation, sampling, roots) and the client's
// answers are checked at both ends, over real stdio processes: a raw server asking a toolwire client what
// no handler could take (a message that is not a string, a form that is not flat, an elicitation mode the
// client did not declare, a `javascript:` URL) gets -32602 and the handler is never called; a raw client
// answering a toolwire server's `ctx.elicit()`, `ctx.sample()` or `ctx.listRoots()` with what is not the
// method's result fails the tool's question with INVALID_RESULT; and the gateway relays neither.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  JsonObject,
  Tool,
  ToolUseContent,
} from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { PROTOCOL_FIXTURE, linkedGateway } from './_gateway.js';
import { linkServer } from './_setup.js';
import { RawWire } from './_wire.js';

// The hostile server's tool `ask` asks its client what a test says, and answers with what it got.
const ASKER = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const form = {
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
};

/** Questions no handler could take, and the words of the -32602 that refuses each. */
const BAD_QUESTIONS: [string, string, unknown, RegExp][] = [
  [
    'a form of 101 fields',
    'elicitation/create',
    {
      message: 'm',
      requestedSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: 'string' }])),
      },
    },
    /requestedSchema has 101 properties, more than the 100 a form may have/,
  ],
  [
    'a message that is not a string',
    'elicitation/create',
    { ...form, message: 5 },
    /message must be a string/,
  ],
  [
    'a form that is not flat',
    'elicitation/create',
    { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
    /requestedSchema\.properties\.a must be a string, number, integer, boolean or array/,
  ],
  [
    'a schema that is not an object',
    'elicitation/create',
    { message: 'm', requestedSchema: 'x' },
    /requestedSchema must be an object/,
  ],
  ['an unknown mode', 'elicitation/create', { ...form, mode: 'popup' }, /mode must be "form" or "url"/],
  [
    'a URL elicitation the client did not declare',
    'elicitation/create',
    { mode: 'url', message: 'm', url: 'https://example.com/', elicitationId: 'e1' },
    /did not declare the elicitation mode "url"/,
  ],
  ['sampling without messages', 'sampling/createMessage', { maxTokens: 5 }, /messages must be an array/],
  [
    'a sampling message with another role',
    'sampling/createMessage',
    { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }], maxTokens: 5 },
    /messages\[0\] must be an object whose role is "user" or "assistant"/,
  ],
  [
    'sampling content that is not a block',
    'sampling/createMessage',
    { messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 },
    /messages\[0\]\.content must be a content block/,
  ],
  [
    'sampling without maxTokens',
    'sampling/createMessage',
    { messages: [] },
    /maxTokens must be a positive number/,
  ],
  [
    'tools offered to a client that did not declare sampling with tools',
    'sampling/createMessage',
    { messages: [], maxTokens: 5, tools: [{ name: 'x', inputSchema: { type: 'object' } }] },
    /this client did not declare sampling with tools/,
  ],
];

/** A toolwire client of the asker fixture over stdio, counting its handlers' calls. */
async function askerClient(options: ClientOptions = {}): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: 'host', version: '1.0.0' },
    {
      elicitation: (params) => (
        asked.push(`elicit ${params.mode ?? 'form'}`),
        { action: 'accept', content: {} }
      ),
      sampling: () => (
        asked.push('sample'),
        { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
      ),
      ...options,
    },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [ASKER], stderr: 'ignore' }),
  );
  cleanup.push(() => client.close());
  return { client, asked };
}

/** What the asker's question got back: `{result}` or `{error}` (through the gateway, its tool is `up__ask`). */
async function ask(
  client: Client,
  method: string,
  params: unknown,
  tool = 'ask',
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const result = await client.callTool(tool, { method, params });
  return JSON.parse((result.content[0] as { text: string }).text) as never;
}

describe('a toolwire client, asked by a server what no handler could take', () => {
  it.each(BAD_QUESTIONS)(
    'refuses %s with -32602 and never calls the handler',
    async (_what, method, params, words) => {
      const { client, asked } = await askerClient();
      const { result, error } = await ask(client, method, params);
      expect(result).toBeUndefined();
      expect(error).toEqual({ code: -32602, message: expect.stringMatching(words) });
      expect(asked).toEqual([]);
    },
  );

  it('takes a URL elicitation it declared, for an http(s) URL only', async () => {
    const { client, asked } = await askerClient({ capabilities: { elicitation: { form: {}, url: {} } } });
    const url = (href: string) => ({ mode: 'url', message: 'Sign in', url: href, elicitationId: 'e1' });
    expect(await ask(client, 'elicitation/create', url('https://example.com/connect'))).toEqual({
      result: { action: 'accept', content: {} },
    });
    for (const href of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,hi', 'not a url'])
      expect((await ask(client, 'elicitation/create', url(href))).error).toEqual({
        code: -32602,
        message: expect.stringMatching(/url must be (an http: or https:|a valid) URL/),
      });
    // A form is still a form: declared with it.
    expect((await ask(client, 'elicitation/create', form)).result).toEqual({ action: 'accept', content: {} });
    expect(asked).toEqual(['elicit url', 'elicit form']);
  });

  it('takes the questions the spec allows, as they come', async () => {
    // The questions are what is tested here (the handler's `{}` does not fill the forms: see below).
    const { client, asked } = await askerClient({ validateElicitation: false });
    const good: [string, unknown][] = [
      ['elicitation/create', form],
      ['elicitation/create', { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }],
      [
        'elicitation/create',
        {
          message: 'Colours?',
          requestedSchema: {
            type: 'object',
            properties: {
              many: { type: 'array', items: { type: 'string', enum: ['r', 'g'] } },
              one: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }] },
              n: { type: 'integer', minimum: 1 },
              ok: { type: 'boolean', default: true },
            },
            required: ['one'],
          },
        },
      ],
      [
        'sampling/createMessage',
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'hi' },
                { type: 'image', data: 'AA==', mimeType: 'image/png' },
              ],
            },
          ],
          maxTokens: 5,
          systemPrompt: 'be brief',
        },
      ],
    ];
    for (const [method, params] of good) expect((await ask(client, method, params)).error).toBeUndefined();
    expect(asked).toEqual(['elicit form', 'elicit form', 'elicit form', 'sample']);
  });

  it('takes sampling with tools when it declared them', async () => {
    const { client, asked } = await askerClient({ capabilities: { sampling: { tools: {} } } });
    const params = { messages: [], maxTokens: 5, tools: [{ name: 'x', inputSchema: { type: 'object' } }] };
    expect((await ask(client, 'sampling/createMessage', params)).error).toBeUndefined();
    expect(asked).toEqual(['sample']);
  });
});

describe("a toolwire client's own form answers", () => {
  const ageForm = {
    type: 'object',
    properties: { age: { type: 'integer', minimum: 18 } },
    required: ['age'],
  };
  /** A server that asks `schema` without checking the answer itself, and shows what it got. */
  async function formAnswered(
    schema: JsonObject,
    answer: ElicitResult,
    options: ClientOptions = {},
  ): Promise<{ outcome: string; asked: number }> {
    const server = new Server({ name: 'forms', version: '1.0.0' });
    server.tool('form', {}, async (_args, ctx) => {
      try {
        const got = await ctx.elicit({ message: 'How old?', requestedSchema: schema }, { validate: false });
        return text(`got ${JSON.stringify(got)}`);
      } catch (error) {
        return text(`error ${(error as Error).message}`);
      }
    });
    let asked = 0;
    const { client } = await linkServer(server, {
      elicitation: () => (asked++, answer),
      onError: () => undefined,
      ...options,
    });
    cleanup.push(() => client.close());
    const outcome = await client.callTool('form').then(
      (result) => (result.content[0] as { text: string }).text,
      (error: unknown) => `rejected ${(error as { code?: string }).code}: ${(error as Error).message}`,
    );
    return { outcome, asked };
  }

  it('are checked against the form before they are sent, in both eras', async () => {
    const young = { action: 'accept', content: { age: 10 } } as const;
    const handshake = await formAnswered(ageForm, young, { protocolVersion: '2025-11-25' });
    expect(handshake.outcome).toMatch(
      /^error Internal error: The elicitation handler's answer is invalid: content does not match the requested schema: .*age/,
    );
    const stateless = await formAnswered(ageForm, young, { protocolVersion: '2026-07-28' });
    expect(stateless.outcome).toMatch(
      /^rejected INVALID_RESULT: The elicitation handler's answer is invalid: content does not match the requested schema/,
    );
    const shape = await formAnswered(ageForm, { action: 'maybe' } as never, {
      protocolVersion: '2025-11-25',
    });
    expect(shape.outcome).toMatch(/answer is invalid: action must be "accept", "decline" or "cancel"/);
    // What the form allows goes through; so does a decline, and anything with the check off.
    expect((await formAnswered(ageForm, { action: 'accept', content: { age: 30 } })).outcome).toBe(
      'got {"action":"accept","content":{"age":30}}',
    );
    expect((await formAnswered(ageForm, { action: 'decline' })).outcome).toBe('got {"action":"decline"}');
    expect((await formAnswered(ageForm, young, { validateElicitation: false })).outcome).toBe(
      'got {"action":"accept","content":{"age":10}}',
    );
  });

  it('answer a form whose schema does not compile with -32602: what was filled in is not sent', async () => {
    const broken = { type: 'object', properties: { code: { type: 'string', pattern: '([a-z' } } };
    const accept = { action: 'accept', content: { code: 'x' } } as const;
    const handshake = await formAnswered(broken, accept, { protocolVersion: '2025-11-25' });
    expect(handshake.outcome).toMatch(
      /^error Invalid params for elicitation\/create: requestedSchema does not compile/,
    );
    const stateless = await formAnswered(broken, accept, { protocolVersion: '2026-07-28' });
    expect(stateless.outcome).toMatch(
      /^rejected -32602: Invalid params for elicitation\/create: requestedSchema does not compile/,
    );
    // Compiled only when there is content to check: a declined form costs nothing.
    expect(handshake.asked + stateless.asked).toBe(2);
    expect((await formAnswered(broken, { action: 'decline' })).outcome).toBe('got {"action":"decline"}');
  });
});

describe('sampling with tools (2025-11-25), typed as the schema has it', () => {
  it('carries tool_use from the model and tool_result back, in block lists', async () => {
    const server = new Server({ name: 'agent', version: '1.0.0' });
    const weather: Tool = {
      name: 'weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    };
    server.tool('plan', {}, async (_args, ctx) => {
      const first = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Weather in Paris?' } }],
        maxTokens: 50,
        tools: [weather],
        toolChoice: { mode: 'required' },
      });
      const use = (Array.isArray(first.content) ? first.content : [first.content])[0];
      if (use?.type !== 'tool_use') return text(`no tool use: ${JSON.stringify(first)}`);
      const second = await ctx.sample({
        messages: [
          { role: 'user', content: { type: 'text', text: 'Weather in Paris?' } },
          { role: 'assistant', content: [use] },
          {
            role: 'user',
            content: [{ type: 'tool_result', toolUseId: use.id, content: [{ type: 'text', text: 'sunny' }] }],
          },
        ],
        maxTokens: 50,
        tools: [weather],
      });
      return text(`${first.stopReason} → ${JSON.stringify(second.content)}`);
    });
    const seen: CreateMessageParams[] = [];
    const { client } = await linkServer(server, {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: { tools: {} } },
      sampling: (params): CreateMessageResult => {
        seen.push(params);
        const last = params.messages.at(-1)?.content;
        const blocks = Array.isArray(last) ? last : [last];
        const answered = blocks.some((block) => block?.type === 'tool_result');
        return answered
          ? {
              role: 'assistant',
              model: 'm',
              content: { type: 'text', text: 'It is sunny' },
              stopReason: 'endTurn',
            }
          : {
              role: 'assistant',
              model: 'm',
              content: [{ type: 'tool_use', id: 'call-1', name: 'weather', input: { city: 'Paris' } }],
              stopReason: 'toolUse',
            };
      },
    });
    cleanup.push(() => client.close());
    const result = await client.callTool('plan');
    expect((result.content[0] as { text: string }).text).toBe(
      'toolUse → {"type":"text","text":"It is sunny"}',
    );
    expect(seen[0]?.toolChoice).toEqual({ mode: 'required' });
    expect(seen[1]?.messages[2]?.content).toEqual([
      { type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: 'sunny' }] },
    ]);
    expectTypeOf<CreateMessageResult['stopReason']>().toExtend<string | undefined>();
    expectTypeOf<ToolUseContent['input']>().toEqualTypeOf<JsonObject>();
  });
});

describe("a toolwire server's form", () => {
  async function formClient(schema: JsonObject, content: ElicitResult['content']) {
    const server = new Server({ name: 'forms', version: '1.0.0' });
    server.tool('form', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Fill in', requestedSchema: schema });
      return text(JSON.stringify(answer.content));
    });
    const asked: unknown[] = [];
    const { client } = await linkServer(server, {
      elicitation: (params) => (asked.push(params), { action: 'accept', content }),
      validateElicitation: false, // the server's check is the one tested here
    });
    cleanup.push(() => client.close());
    return { result: await client.callTool('form'), asked };
  }
  const schema = {
    type: 'object',
    properties: { age: { type: 'integer', minimum: 18 }, mail: { type: 'string', format: 'email' } },
    required: ['age'],
  };

  it('takes content its requestedSchema allows', async () => {
    const { result } = await formClient(schema, { age: 30, mail: 'ada@example.com' });
    expect(result).toEqual({ content: [{ type: 'text', text: '{"age":30,"mail":"ada@example.com"}' }] });
  });

  it.each([
    [{ age: 12 }, /must be >= 18/],
    [{ mail: 'ada@example.com' }, /must have required property 'age'/],
    [{ age: 30, mail: 'not mail' }, /must match format "email"/],
  ])('refuses content %j that it does not allow, before the tool sees it', async (content, words) => {
    const { result } = await formClient(schema, content);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(
      /The client's answer to elicitation\/create does not match the requested schema: /,
    );
    expect((result.content[0] as { text: string }).text).toMatch(words);
  });

  it('fails at once, before anybody is asked, when the form does not compile', async () => {
    const { result, asked } = await formClient(
      { type: 'object', properties: { a: { type: 'string', pattern: '(?<=x)a' } } },
      { a: 'a' },
    );
    expect(result.isError).toBe(true);
    expect(asked).toEqual([]);
  });
});

describe("a toolwire server, answered by its client what is not the method's result", () => {
  const answers: [string, string, unknown, RegExp][] = [
    ['ask', 'elicitation/create', { action: 'maybe' }, /action must be "accept", "decline" or "cancel"/],
    // The fixture's form asks for a string `name`.
    [
      'ask',
      'elicitation/create',
      { action: 'accept', content: { name: 5 } },
      /requested schema: .*name.*string/,
    ],
    [
      'ask',
      'elicitation/create',
      { action: 'accept', content: { name: { first: 'Ada' } } },
      /content\.name must be a string, number, boolean or array of strings/,
    ],
    [
      'sample',
      'sampling/createMessage',
      { role: 'assistant', content: { type: 'text', text: 'hi' } },
      /model must be a string/,
    ],
    [
      'sample',
      'sampling/createMessage',
      { role: 'assistant', content: 'hi', model: 'm' },
      /content must be a content block/,
    ],
    ['roots', 'roots/list', { roots: [{ name: 'no uri' }] }, /roots\[0\]\.uri must be a string/],
    ['roots', 'roots/list', {}, /roots must be an array/],
  ];

  it.each(answers)('fails the tool %s when %s is answered %j', async (tool, method, answer, words) => {
    const wire = new RawWire(PROTOCOL_FIXTURE);
    cleanup.push(() => wire.close());
    await wire.call(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      clientInfo: { name: 'raw', version: '1' },
    });
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } });
    const question = (await wire.next()) as { id: string | number; method: string };
    expect(question.method).toBe(method);
    wire.send({ jsonrpc: '2.0', id: question.id, result: answer });
    const { result } = await wire.answer<{ result: { content: { text: string }[]; isError: boolean } }>(1);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(
      new RegExp(`The client's answer to ${method} (is invalid|does not match the requested schema): `),
    );
    expect(result.content[0]?.text).toMatch(words);
  });
});

describe('the gateway, between a hostile upstream and a careless caller', () => {
  const throughGateway = (options: ClientOptions) => linkedGateway('up', [ASKER], options, cleanup);

  it("refuses the upstream's bad questions itself: the caller's handlers never see them", async () => {
    const asked: unknown[] = [];
    const client = await throughGateway({
      elicitation: (params) => (asked.push(params), { action: 'accept', content: {} }),
      capabilities: { elicitation: { form: {}, url: {} } },
    });
    const upstreamGot = (params: unknown) => ask(client, 'elicitation/create', params, 'up__ask');
    expect((await upstreamGot({ ...form, message: 5 })).error).toEqual({
      code: -32602,
      message: expect.stringMatching(/message must be a string/),
    });
    // The gateway's own client refuses a javascript: URL, though its caller takes URL elicitation.
    expect(
      (await upstreamGot({ mode: 'url', message: 'm', url: 'javascript:alert(1)', elicitationId: 'e' }))
        .error,
    ).toEqual({ code: -32602, message: expect.stringMatching(/url must be an http: or https: URL/) });
    expect(asked).toEqual([]);
    expect(await upstreamGot(form)).toEqual({ result: { action: 'accept', content: {} } });
    expect(asked).toEqual([form]);
  });

  it("does not relay the caller's bad answer upstream (handshake era): the upstream gets an error", async () => {
    const client = await throughGateway({
      protocolVersion: '2025-11-25',
      elicitation: () => ({ action: 'maybe', content: 5 }) as never,
      validateElicitation: false, // a careless client that sends it all the same
    });
    const result = await client.callTool('up__ask', { method: 'elicitation/create', params: form });
    const got = JSON.parse((result.content[0] as { text: string }).text) as {
      result?: unknown;
      error?: { message: string };
    };
    expect(got.result).toBeUndefined();
    expect(got.error?.message).toMatch(
      /The client's answer to elicitation\/create is invalid: action must be "accept", "decline" or "cancel"/,
    );
  });

  it("refuses the caller's bad answer (stateless era) with -32602: nothing goes upstream", async () => {
    const client = await throughGateway({
      protocolVersion: '2026-07-28',
      elicitation: () => ({ action: 'accept', content: { name: { first: 'Ada' } } }) as never,
      validateElicitation: false, // a careless client that sends it all the same
    });
    await expect(
      client.callTool('up__ask', { method: 'elicitation/create', params: form }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /is not a valid elicitation\/create result: content\.name must be a string, number, boolean or array of strings/,
      ),
    });
  });

  const URL_FORM = {
    mode: 'url',
    message: 'Sign in',
    url: 'https://example.com/connect',
    elicitationId: 'e1',
  };
  /** Handlers that keep each question they answer: accept, and a sample of text. */
  const recording = (asked: unknown[]): Pick<ClientOptions, 'elicitation' | 'sampling'> => ({
    elicitation: (params) => (asked.push(params), { action: 'accept' }),
    sampling: (params) => (
      asked.push(params),
      { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
    ),
  });
  const TOOL_SAMPLING = {
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    maxTokens: 5,
    tools: [{ name: 'lookup', inputSchema: { type: 'object' } }],
  };

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'relays URL elicitation and sampling with tools to a %s caller that declared them',
    async (protocolVersion) => {
      const asked: unknown[] = [];
      const client = await throughGateway({
        protocolVersion,
        capabilities: { elicitation: { form: {}, url: {} }, sampling: { tools: {} } },
        ...recording(asked),
      });
      const upstreamGot = (method: string, params: unknown) => ask(client, method, params, 'up__ask');
      expect(await upstreamGot('elicitation/create', URL_FORM)).toEqual({ result: { action: 'accept' } });
      expect(await upstreamGot('sampling/createMessage', TOOL_SAMPLING)).toEqual({
        result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' },
      });
      // The stateless era has no elicitationId.
      const { elicitationId: _id, ...statelessUrl } = URL_FORM;
      expect(asked).toEqual([protocolVersion === '2025-11-25' ? URL_FORM : statelessUrl, TOOL_SAMPLING]);
    },
  );

  it('answers the upstream -32602 for a handshake-era caller that did not declare them, and asks it nothing', async () => {
    const asked: unknown[] = [];
    const client = await throughGateway({
      protocolVersion: '2025-11-25',
      ...recording(asked),
    });
    const upstreamGot = (method: string, params: unknown) => ask(client, method, params, 'up__ask');
    expect(await upstreamGot('elicitation/create', URL_FORM)).toEqual({
      error: {
        code: -32602,
        message: 'The client did not declare elicitation.url, so elicitation/create cannot be sent',
      },
    });
    expect(await upstreamGot('sampling/createMessage', TOOL_SAMPLING)).toEqual({
      error: {
        code: -32602,
        message: 'The client did not declare sampling.tools, so sampling/createMessage cannot be sent',
      },
    });
    expect(asked).toEqual([]);
  });
});
