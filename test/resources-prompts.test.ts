// Resources, resource templates, prompts and completion: the fixture server over every transport and
// revision, the raw pages on the wire, and the notifications of a server built in this process.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { ProtocolError } from '../src/protocol/errors.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { HANDSHAKE_REVISIONS } from '../src/protocol/revisions/index.js';
import type { Transport } from '../src/protocol/transport.js';
import { Server, audio, embeddedResource, image, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { FIXTURE, describeMatrix, inProcessHttp } from './_setup.js';
import { RawWire } from './_wire.js';

const STATIC_TEXT = 'This is the content of the static text resource.';
const RESOURCE_URIS = [
  'test://static-text',
  'test://static-binary',
  'test://static-json',
  'test://watched-resource',
];
const PROMPT_NAMES = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_media',
];

describeMatrix('resources and prompts', (connect) => {
  it.each(HANDSHAKE_REVISIONS)(
    'declares resources, prompts and (from 2025-03-26) completions at %s',
    async (version) => {
      await using c = await connect({ protocolVersion: version });
      const caps = c.client.serverCapabilities;
      expect(caps?.resources).toEqual({ subscribe: true, listChanged: true });
      expect(caps?.prompts).toEqual({ listChanged: true });
      expect(caps?.completions).toEqual(version === '2024-11-05' ? undefined : {});
    },
  );

  it('lists every resource and template across pages, in registration order', async () => {
    await using c = await connect();
    expect((await c.client.listResources()).map((r) => r.uri)).toEqual(RESOURCE_URIS);
    expect((await c.client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
      'test://template/{id}/data',
      'test://files/{dir}/{name}',
    ]);
  });

  it('reads text, binary and multi-field contents', async () => {
    await using c = await connect();
    expect(await c.client.readResource('test://static-text')).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: STATIC_TEXT }],
    });
    const binary = await c.client.readResource('test://static-binary');
    expect(binary.contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.stringMatching(/^iVBOR/) },
    ]);
    expect(await c.client.readResource('test://static-json')).toEqual({
      contents: [
        {
          uri: 'test://static-json',
          mimeType: 'application/json',
          text: '{"ok":true}',
          _meta: { 'com.example/c': 1 },
        },
      ],
    });
  });

  it('reads through a template with the decoded variables', async () => {
    await using c = await connect();
    expect(await c.client.readResource('test://template/42/data')).toEqual({
      contents: [{ uri: 'test://template/42/data', mimeType: 'application/json', text: '{"id":"42"}' }],
    });
    const file = await c.client.readResource('test://files/docs/a%20b.md');
    expect(file.contents).toEqual([
      { uri: 'test://files/docs/a%20b.md', mimeType: 'text/plain', text: 'docs/a b.md' },
    ]);
  });

  it('answers an unknown URI with -32002 and the URI as data', async () => {
    await using c = await connect({ protocolVersion: '2025-11-25' }); // the stateless era answers -32602
    const error = await c.client.readResource('test://missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'test://missing' },
    });
    await expect(c.client.readResource('test://template/1/2/data')).rejects.toMatchObject({ code: -32002 });
  });

  it('shapes resources, templates and contents for each revision', async () => {
    await using old = await connect({ protocolVersion: '2024-11-05' });
    const [oldText] = await old.client.listResources();
    expect(oldText).toEqual({
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A static text resource',
      mimeType: 'text/plain',
      annotations: { audience: ['user'], priority: 0.5 },
    });
    expect((await old.client.listResourceTemplates())[0]).not.toHaveProperty('title');
    const oldJson = await old.client.readResource('test://static-json');
    expect(oldJson.contents[0]).not.toHaveProperty('_meta');

    await using mid = await connect({ protocolVersion: '2025-06-18' });
    const [midText] = await mid.client.listResources();
    expect(midText).toMatchObject({
      title: 'Static text',
      _meta: { 'com.example/r': 1 },
      annotations: { lastModified: '2025-01-01T00:00:00Z' },
    });
    expect(midText).not.toHaveProperty('icons');

    await using latest = await connect();
    expect((await latest.client.listResources())[0]?.icons).toEqual([
      { src: expect.stringMatching(/^data:image\/png/), mimeType: 'image/png' },
    ]);
  });

  it('accepts subscribe and unsubscribe, and refuses a missing URI with -32602', async () => {
    await using c = await connect();
    await expect(c.client.subscribeResource('test://watched-resource')).resolves.toBeUndefined();
    await expect(c.client.unsubscribeResource('test://watched-resource')).resolves.toBeUndefined();
    await expect(c.client.subscribeResource(undefined as never)).rejects.toMatchObject({ code: -32602 });
  });

  it('lists every prompt across pages, arguments without their completion functions', async () => {
    await using c = await connect();
    const prompts = await c.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(PROMPT_NAMES);
    expect(prompts[1]).toEqual({
      name: 'test_prompt_with_arguments',
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', title: 'First', required: true },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
    });
    expect(prompts[3]).toMatchObject({ icons: [{ src: 'data:,' }], _meta: { 'com.example/p': 1 } });
  });

  it('shapes prompt titles, icons and _meta away for 2024-11-05', async () => {
    await using c = await connect({ protocolVersion: '2024-11-05' });
    const prompts = await c.client.listPrompts();
    expect(prompts[1]).toEqual({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', required: true },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
    });
    expect(prompts[3]).toEqual({ name: 'test_prompt_with_media' });
  });

  it('gets a prompt with its arguments', async () => {
    await using c = await connect();
    expect(await c.client.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' })).toEqual({
      description: 'with arguments',
      messages: [
        { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } },
      ],
    });
    expect(await c.client.getPrompt('test_simple_prompt')).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
    const embedded = await c.client.getPrompt('test_prompt_with_embedded_resource', {
      resourceUri: 'test://x',
    });
    expect(embedded.messages[0]?.content).toEqual({
      type: 'resource',
      resource: { uri: 'test://x', mimeType: 'text/plain', text: 'embedded' },
    });
  });

  it('answers an unknown prompt or a missing required argument with -32602', async () => {
    await using c = await connect();
    await expect(c.client.getPrompt('nope')).rejects.toMatchObject({ code: -32602 });
    await expect(c.client.getPrompt('test_prompt_with_arguments', { arg1: 'a' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('"arg2"'),
    });
    await expect(
      c.client.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 2 } as never),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('shapes prompt messages like tool content for each revision', async () => {
    await using old = await connect({ protocolVersion: '2024-11-05' });
    const { messages } = await old.client.getPrompt('test_prompt_with_media');
    expect(messages.map((m) => m.content.type)).toEqual(['image', 'resource', 'text']);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: {
        type: 'resource',
        resource: { uri: 'data:audio/wav;base64,', mimeType: 'audio/wav', blob: 'UklGRg==' },
      },
    });
    expect(messages[2]?.content).toEqual({
      type: 'text',
      text: 'Resource link: static-text test://static-text',
    });
    await using latest = await connect();
    const fresh = await latest.client.getPrompt('test_prompt_with_media');
    expect(fresh.messages.map((m) => m.content.type)).toEqual(['image', 'audio', 'resource_link']);
  });

  it('completes a prompt argument and a template variable', async () => {
    await using c = await connect();
    expect(
      await c.client.complete(
        { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        { name: 'arg1', value: 'par' },
      ),
    ).toEqual({
      values: ['paris', 'park', 'party'],
      total: 3,
      hasMore: false,
    });
    const ids = await c.client.complete(
      { type: 'ref/resource', uri: 'test://template/{id}/data' },
      { name: 'id', value: '1' },
    );
    expect(ids.values).toEqual(['1', '10']);
    const noCompleter = await c.client.complete(
      { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      { name: 'arg2', value: '' },
    );
    expect(noCompleter.values).toEqual([]);
  });

  it('passes the values already chosen as context, from 2025-06-18', async () => {
    const ref = { type: 'ref/resource', uri: 'test://files/{dir}/{name}' } as const;
    await using c = await connect();
    const names = await c.client.complete(ref, { name: 'name', value: '' }, { dir: 'docs' });
    expect(names.values).toEqual(['guide.md', 'intro.md']);
    await using old = await connect({ protocolVersion: '2025-03-26' });
    const oldNames = await old.client.complete(ref, { name: 'name', value: '' }, { dir: 'docs' });
    expect(oldNames.values).toEqual(['main.ts']); // the context is not sent to a 2025-03-26 server
  });

  it('answers completion for an unknown ref, argument or variable with -32602', async () => {
    await using c = await connect();
    const complete = (ref: JsonObject, name: string) =>
      c.client.complete(ref as never, { name, value: '' }).catch((e: unknown) => e);
    expect(await complete({ type: 'ref/prompt', name: 'nope' }, 'x')).toMatchObject({ code: -32602 });
    expect(await complete({ type: 'ref/resource', uri: 'test://nope/{x}' }, 'x')).toMatchObject({
      code: -32602,
    });
    expect(await complete({ type: 'ref/prompt', name: 'test_simple_prompt' }, 'x')).toMatchObject({
      code: -32602,
    });
    expect(await complete({ type: 'ref/resource', uri: 'test://template/{id}/data' }, 'x')).toMatchObject({
      code: -32602,
    });
    expect(await complete({ type: 'ref/tool', name: 'echo' }, 'x')).toMatchObject({ code: -32602 });
  });
});

/** Plain JSON-RPC against the fixture: what the client library hides (cursors). */
interface Raw {
  call(method: string, params?: JsonObject): Promise<JsonObject>;
  close(): Promise<void>;
}

/** A Peer on `clientEnd`, initialized at 2025-11-25; closing closes it, then `after` (the server side). */
async function rawPeer(clientEnd: Transport, after: () => Promise<void>): Promise<Raw> {
  const peer = new Peer();
  await peer.connect(clientEnd);
  await peer.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  await peer.notify('notifications/initialized');
  return {
    call: (method, params = {}) => peer.request(method, params),
    close: async () => {
      await peer.close();
      await after();
    },
  };
}

async function fixtureServer(): Promise<Server> {
  return ((await import(FIXTURE)) as { default: () => Server }).default();
}

async function rawInMemory(): Promise<Raw> {
  const server = await fixtureServer();
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  return rawPeer(clientEnd, () => server.close());
}

async function rawHttp(): Promise<Raw> {
  const server = await fixtureServer();
  const { transport, handler } = inProcessHttp(server);
  return rawPeer(transport, async () => {
    await handler.close();
    await server.close();
  });
}

async function rawStdio(): Promise<Raw> {
  const wire = new RawWire();
  await wire.initialize();
  let id = 1;
  return {
    call: async (method, params = {}) => {
      const response = (await wire.call(id++, method, params)) as {
        result?: JsonObject;
        error?: { code: number; message: string };
      };
      if (response.error) throw ProtocolError.fromObject(response.error);
      return response.result ?? {};
    },
    close: () => wire.close(),
  };
}

describe.each([
  ['in-memory', rawInMemory],
  ['stdio', rawStdio],
  ['http', rawHttp],
])('list pages on the wire [%s]', (_name, open) => {
  it('splits resources, templates and prompts into pages of the server page size, linked by cursors', async () => {
    const raw = await open();
    try {
      const first = await raw.call('resources/list');
      expect((first.resources as JsonObject[]).map((r) => r.uri)).toEqual(RESOURCE_URIS.slice(0, 3));
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await raw.call('resources/list', { cursor: first.nextCursor as string });
      expect(second).toEqual({ resources: [expect.objectContaining({ uri: 'test://watched-resource' })] });
      expect(await raw.call('resources/templates/list')).not.toHaveProperty('nextCursor');
      const prompts = await raw.call('prompts/list');
      expect((prompts.prompts as JsonObject[]).map((p) => p.name)).toEqual(PROMPT_NAMES.slice(0, 3));
      const rest = await raw.call('prompts/list', { cursor: prompts.nextCursor as string });
      expect((rest.prompts as JsonObject[]).map((p) => p.name)).toEqual(PROMPT_NAMES.slice(3));
    } finally {
      await raw.close();
    }
  });

  it.each(['resources/list', 'resources/templates/list', 'prompts/list'])(
    'rejects a bad cursor on %s with -32602',
    async (method) => {
      const raw = await open();
      try {
        await expect(raw.call(method, { cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602 });
        await expect(raw.call(method, { cursor: 7 as never })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await raw.close();
      }
    },
  );
});

/** A server of this process and `count` clients connected to it over the in-memory pair. */
async function connectClients(server: Server, count: number) {
  const clients: Client[] = [];
  for (let i = 0; i < count; i++) {
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    // Handshake-era sessions: list_changed reaches them without a subscriptions/listen stream.
    const client = new Client({ name: `c${i}`, version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(clientEnd);
    clients.push(client);
  }
  return {
    clients,
    async [Symbol.asyncDispose]() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

describe('resource and prompt notifications', () => {
  it('sends resources/updated only to the sessions subscribed to that URI, until they unsubscribe', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource('test://a', { name: 'a' }, () => 'a');
    await using pair = await connectClients(server, 2);
    const [subscriber, bystander] = pair.clients as [Client, Client];
    const seen: string[] = [];
    const unseen: string[] = [];
    subscriber.onResourceUpdated((uri) => seen.push(uri));
    bystander.onResourceUpdated((uri) => unseen.push(uri));
    await subscriber.subscribeResource('test://a');
    await server.notifyResourceUpdated('test://a');
    await server.notifyResourceUpdated('test://b');
    await expect.poll(() => seen).toEqual(['test://a']);
    await subscriber.unsubscribeResource('test://a');
    await server.notifyResourceUpdated('test://a');
    await settle();
    expect(seen).toEqual(['test://a']);
    expect(unseen).toEqual([]);
  });

  it('coalesces a burst of resource and template changes into one resources/list_changed', async () => {
    const server = new Server({ name: 's', version: '1' });
    const first = server.resource('test://a', { name: 'a' }, () => 'a');
    await using pair = await connectClients(server, 1);
    const client = pair.clients[0]!;
    let changes = 0;
    client.onResourceListChanged(() => changes++);
    server.resource('test://b', { name: 'b' }, () => 'b');
    server.resourceTemplate('test://t/{x}', { name: 't' }, () => 't');
    first.update({ description: 'changed' });
    first.disable();
    await expect.poll(() => changes).toBe(1);
    await settle();
    expect(changes).toBe(1);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['test://b']);
    await expect(client.readResource('test://a')).rejects.toMatchObject({ code: -32002 });
    first.remove();
    await expect.poll(() => changes).toBe(2);
  });

  it('coalesces prompt changes into one prompts/list_changed', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt('p', {}, () => 'p');
    await using pair = await connectClients(server, 1);
    const client = pair.clients[0]!;
    let changes = 0;
    client.onPromptListChanged(() => changes++);
    const q = server.prompt('q', { description: 'q' }, () => 'q');
    q.update({ description: 'Q' });
    await expect.poll(() => changes).toBe(1);
    await settle();
    expect(changes).toBe(1);
    expect(await client.listPrompts()).toEqual([{ name: 'p' }, { name: 'q', description: 'Q' }]);
    expect(await client.getPrompt('q')).toEqual({ messages: [{ role: 'user', content: text('q') }] });
  });

  it('does not send list_changed for registrations made before the client initialized', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource('test://a', { name: 'a' }, () => 'a');
    server.prompt('p', {}, () => 'p');
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    server.resource('test://b', { name: 'b' }, () => 'b'); // connected, not yet initialized
    server.prompt('q', {}, () => 'q');
    const client = new Client({ name: 'c', version: '1' });
    let changes = 0;
    client.onResourceListChanged(() => changes++);
    client.onPromptListChanged(() => changes++);
    await client.connect(clientEnd);
    await settle();
    expect(changes).toBe(0);
    server.resource('test://c', { name: 'c' }, () => 'c');
    await expect.poll(() => changes).toBe(1);
    await client.close();
    await server.close();
  });

  it('declares only tools and logging for a server with only tools', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.tool('t', {}, () => 't');
    await using pair = await connectClients(server, 1);
    const client = pair.clients[0]!;
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true }, logging: {} });
    // A resource registered later is served to that client, which was never told of the capability,
    // so it gets no list_changed.
    let changes = 0;
    client.onResourceListChanged(() => changes++);
    server.resource('test://late', { name: 'late' }, () => 'late');
    expect((await client.readResource('test://late')).contents).toEqual([
      { uri: 'test://late', text: 'late' },
    ]);
    await settle();
    expect(changes).toBe(0);
  });

  it('declares completions with the first prompt or template, not with plain resources', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resource('test://a', { name: 'a' }, () => 'a');
    expect(server.capabilities).toEqual({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
    });
    server.prompt('p', {}, () => 'p');
    expect(server.capabilities).toMatchObject({ prompts: { listChanged: true }, completions: {} });
  });

  it('refuses bad definitions at registration', () => {
    const server = new Server({ name: 's', version: '1' });
    const read = () => 'x';
    expect(() => server.resource('no-scheme', { name: 'x' }, read)).toThrow(/scheme/);
    expect(() => server.resource('test://{id}', { name: 'x' }, read)).toThrow(/resourceTemplate/);
    expect(() => server.resource('test://x', { name: '' }, read)).toThrow(/name/);
    server.resource('test://x', { name: 'x' }, read);
    expect(() => server.resource('test://x', { name: 'x' }, read)).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_NAME' }),
    );
    expect(() => server.resourceTemplate('test://{#path}', { name: 't' }, read)).toThrow(/is not supported/);
    expect(() =>
      server.resourceTemplate('test://{id}', { name: 't', complete: { other: () => [] } }, read),
    ).toThrow(/other/);
    expect(() => server.prompt('p', { arguments: [{ name: 'a' }, { name: 'a' }] }, () => 'p')).toThrow(
      /twice/,
    );
  });

  it('refuses definition fields of the wrong type at registration, so none reaches a list', () => {
    const server = new Server({ name: 's', version: '1' });
    const read = () => 'x';
    const refused = (message: RegExp): unknown =>
      expect.objectContaining({ code: 'INVALID_DEFINITION', message: expect.stringMatching(message) });
    for (const field of ['title', 'description', 'mimeType']) {
      expect(() => server.resource('test://x', { name: 'x', [field]: 1 }, read), field).toThrow(
        refused(new RegExp(`${field} must be a string`)),
      );
      expect(() =>
        server.resourceTemplate('test://{id}', { name: 't', [field]: { evil: true } }, read),
      ).toThrow(refused(new RegExp(`${field} must be a string`)));
    }
    const files = {
      'SKILL.md': '---\nname: review\ndescription: Reviews\n---\nBody',
      'a.bin': new Uint8Array([1]),
    };
    expect(() => server.skill('review', { files, mimeTypes: { 'SKILL.md': 1 as never } })).toThrow(
      refused(/mimeTypes\["SKILL.md"\] must be a string/),
    );
    expect(() => server.skill('review', { files, mimeTypes: { 'a.bin': { evil: true } as never } })).toThrow(
      refused(/mimeTypes\["a.bin"\] must be a string/),
    );
    expect(() => server.prompt('p', { description: 1 as never }, () => 'p')).toThrow(
      refused(/description must be a string/),
    );
    expect(() =>
      server.prompt('p', { arguments: [{ name: 'a', required: 'yes' as never }] }, () => 'p'),
    ).toThrow(refused(/required must be a boolean/));
    // Nothing was registered: the lists are as before.
    server.skill('review', { files, mimeTypes: { 'a.bin': 'application/x-thing' } });
    server.resource(
      'test://ok',
      { name: 'ok', mimeType: 'text/plain', title: 'OK', description: 'fine' },
      read,
    );
  });

  it('gives readers a signal that aborts when the server closes', async () => {
    const server = new Server({ name: 's', version: '1' });
    let aborted = false;
    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    server.resource('test://slow', { name: 'slow' }, (_uri, ctx) => {
      reading();
      return new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => ((aborted = true), resolve('late'))),
      );
    });
    const pair = await connectClients(server, 1);
    const read = pair.clients[0]!.readResource('test://slow').catch((e: unknown) => e);
    await started; // the reader is running when the server closes
    await server.close();
    expect(await read).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(aborted).toBe(true);
  });

  it("gives prompt getters and completers their request's signal: aborted when the caller cancels, and when the server closes", async () => {
    const server = new Server({ name: 's', version: '1' });
    const started: string[] = [];
    const aborted: string[] = [];
    // Each waits until its signal aborts, and says so.
    const waitFor = (name: string, signal: AbortSignal) => {
      started.push(name);
      return new Promise<never>((_resolve, reject) =>
        signal.addEventListener('abort', () => (aborted.push(name), reject(new Error('aborted')))),
      );
    };
    server.prompt(
      'slow',
      { arguments: [{ name: 'who', complete: (_value, ctx) => waitFor('completer', ctx.signal) }] },
      (_args, ctx) => waitFor(`prompt ${started.length}`, ctx.signal),
    );
    const pair = await connectClients(server, 1);
    const client = pair.clients[0]!;
    const cancel = new AbortController();
    const cancelled = client
      .getPrompt('slow', { who: 'x' }, { signal: cancel.signal })
      .catch((e: unknown) => e);
    await expect.poll(() => started).toEqual(['prompt 0']);
    cancel.abort(new Error('the caller gave up'));
    expect(await cancelled).toMatchObject({ code: 'REQUEST_CANCELLED' });
    await expect.poll(() => aborted).toEqual(['prompt 0']);
    // Running when the server closes: both are aborted.
    const closing = [
      client.getPrompt('slow', { who: 'x' }).catch((e: unknown) => e),
      client
        .complete({ type: 'ref/prompt', name: 'slow' }, { name: 'who', value: '' })
        .catch((e: unknown) => e),
    ];
    await expect.poll(() => started.length).toBe(3);
    await server.close();
    for (const result of await Promise.all(closing))
      expect(result).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect([...aborted].sort()).toEqual(['completer', 'prompt 0', 'prompt 1']);
  });
});

/** A raw peer on `server` (in memory), whose errors come back as values. */
async function rawOn(server: Server): Promise<Raw> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  return rawPeer(clientEnd, () => server.close());
}

describe('results checked on the wire', () => {
  it('answers a prompt whose getter returns a block the spec does not define with -32603 naming the message, and onPromptBug hears it', async () => {
    const errors: Error[] = [];
    const bugs: [string, string][] = [];
    const server = new Server(
      { name: 's', version: '1' },
      { onError: (e) => errors.push(e), onPromptBug: (message, prompt) => bugs.push([message, prompt]) },
    );
    const blocks: Record<string, unknown> = {
      bogus: { type: 'bogus', whatever: 1 },
      textNoText: { type: 'text' },
      imageBytes: { type: 'image', data: new Uint8Array([1, 2, 3]), mimeType: 'image/png' },
      audioNotBase64: { type: 'audio', data: 'AA=A', mimeType: 'audio/wav' },
      noContent: undefined,
    };
    for (const [name, content] of Object.entries(blocks)) {
      server.prompt(name, {}, () => [
        { role: 'user', content: text('fine') },
        { role: 'assistant', content: content as never },
      ]);
    }
    server.prompt('badRole', {}, () => [{ role: 'system', content: text('x') } as never]);
    server.prompt('notMessages', {}, () => ({ messages: 'hello' }) as never);
    server.prompt('fails', {}, () => {
      throw new TypeError('the database is down');
    });
    const raw = await rawOn(server);
    try {
      for (const name of Object.keys(blocks)) {
        const answer = await raw.call('prompts/get', { name }).catch((e: unknown) => e);
        expect(answer, name).toMatchObject({ code: -32603, message: expect.stringContaining('messages[1]') });
      }
      expect(await raw.call('prompts/get', { name: 'bogus' }).catch((e: unknown) => e)).toMatchObject({
        message: expect.stringContaining('messages[1].content has type "bogus", which is no content type'),
      });
      expect(
        await raw.call('prompts/get', { name: 'audioNotBase64' }).catch((e: unknown) => e),
      ).toMatchObject({
        message: expect.stringContaining(
          'messages[1].content is an audio block whose data is not base64 (RFC 4648, padded)',
        ),
      });
      expect(await raw.call('prompts/get', { name: 'badRole' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message: expect.stringContaining('messages[0]'),
      });
      expect(bugs.length).toBe(Object.keys(blocks).length + 3);
      expect(bugs[0]).toEqual([
        'Prompt bogus returned an invalid result: messages[1].content has type "bogus", which is no content type',
        'bogus',
      ]);
      expect(bugs.at(-1)).toEqual([
        'Prompt badRole returned an invalid result: messages[0] has no role "user" or "assistant"',
        'badRole',
      ]);
      expect(await raw.call('prompts/get', { name: 'notMessages' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message:
          'Internal error: Prompt notMessages returned something other than messages ({ role, content })',
      });
      expect(bugs.at(-1)).toEqual([
        'Prompt notMessages returned something other than messages ({ role, content })',
        'notMessages',
      ]);
      expect(errors).toEqual([]);
      // A getter that fails is no bug: onError hears it, as before.
      expect(await raw.call('prompts/get', { name: 'fails' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message: 'Internal error: the database is down',
      });
      expect(errors.map((e) => e.message)).toEqual(['the database is down']);
      expect(bugs.length).toBe(Object.keys(blocks).length + 4);
    } finally {
      await raw.close();
    }
  });

  it('answers a read whose blob is not base64 with -32603, and passes base64 unchanged', async () => {
    const bugs: [string, string][] = [];
    const errors: Error[] = [];
    const server = new Server(
      { name: 's', version: '1' },
      { onError: (e) => errors.push(e), onResourceBug: (message, uri) => bugs.push([message, uri]) },
    );
    const blobs: Record<string, string> = {
      bad: 'this is not base64!!',
      unpadded: 'AAEC/w',
      padInside: 'AA=A',
      // Non-canonical: the bits left over by the padding are not zero ('QR==' would read as 'QQ==', "A").
      loosePadding: 'QR==',
      looseOnePad: 'AAF=',
      good: 'AAEC/w==',
      goodOnePad: 'AAE=',
      empty: '',
    };
    for (const [name, blob] of Object.entries(blobs)) {
      server.resource(`x://${name}`, { name }, (uri) => ({ uri, blob }));
    }
    server.resource('x://many', { name: 'many' }, (uri) => ({
      contents: [
        { uri, blob: 'AQ==' },
        { uri, blob: 'AQ=' },
      ],
    }));
    const raw = await rawOn(server);
    try {
      for (const name of ['bad', 'unpadded', 'padInside', 'loosePadding', 'looseOnePad', 'many']) {
        const answer = await raw.call('resources/read', { uri: `x://${name}` }).catch((e: unknown) => e);
        expect(answer, name).toMatchObject({ code: -32603, message: expect.stringMatching(/is not base64/) });
      }
      for (const name of ['good', 'goodOnePad', 'empty']) {
        expect(await raw.call('resources/read', { uri: `x://${name}` })).toEqual({
          contents: [{ uri: `x://${name}`, blob: blobs[name] }],
        });
      }
      expect(bugs.map(([, uri]) => uri)).toEqual([
        'x://bad',
        'x://unpadded',
        'x://padInside',
        'x://loosePadding',
        'x://looseOnePad',
        'x://many',
      ]);
      expect(bugs[0]?.[0]).toMatch(/^Resource x:\/\/bad: read returned a blob that is not base64/);
      expect(errors).toEqual([]);
    } finally {
      await raw.close();
    }
  });

  it('answers a read whose reader returns no contents with -32603, and onResourceBug hears it (a reader that fails, onError)', async () => {
    const bugs: [string, string][] = [];
    const errors: Error[] = [];
    const server = new Server(
      { name: 's', version: '1' },
      { onError: (e) => errors.push(e), onResourceBug: (message, uri) => bugs.push([message, uri]) },
    );
    server.resource('x://empty', { name: 'empty' }, (uri) => ({ uri, size: 3 }) as never);
    server.resourceTemplate('x://rows/{id}', { name: 'row' }, () => [42] as never);
    server.resource('x://fails', { name: 'fails' }, () => {
      throw new TypeError('the disk is gone');
    });
    const raw = await rawOn(server);
    try {
      expect(await raw.call('resources/read', { uri: 'x://empty' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message: 'Internal error: Resource x://empty: read returned contents without text or blob',
      });
      expect(await raw.call('resources/read', { uri: 'x://rows/7' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message: 'Internal error: Resource x://rows/7: read returned contents that are not objects',
      });
      expect(bugs).toEqual([
        ['Resource x://empty: read returned contents without text or blob', 'x://empty'],
        ['Resource x://rows/7: read returned contents that are not objects', 'x://rows/7'],
      ]);
      expect(errors).toEqual([]);
      expect(await raw.call('resources/read', { uri: 'x://fails' }).catch((e: unknown) => e)).toMatchObject({
        code: -32603,
        message: 'Internal error: the disk is gone',
      });
      expect(errors.map((e) => e.message)).toEqual(['the disk is gone']);
      expect(bugs).toHaveLength(2);
    } finally {
      await raw.close();
    }
  });

  it('refuses a base64 string that is not base64 in the content helpers', () => {
    expect(() => image('not base64!!', 'image/png')).toThrow(/image\(\) data is not base64/);
    expect(() => audio('AAA', 'audio/wav')).toThrow(/audio\(\) data is not base64/);
    expect(() => embeddedResource({ uri: 'x://a', blob: '@@@@' })).toThrow(/blob is not base64/);
    expect(image('AAEC/w==', 'image/png').data).toBe('AAEC/w==');
    expect(image(new Uint8Array([0, 1, 2, 255]), 'image/png').data).toBe('AAEC/w==');
  });
});
