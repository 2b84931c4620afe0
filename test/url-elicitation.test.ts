// URL-mode elicitation beyond the question itself (2025-11-25): the -32042 `UrlElicitationRequiredError` a
// tool throws, shaped for each client (as it is; asked through input_required in the stateless era; an
// isError result for a client that cannot show a URL), `notifications/elicitation/complete` from
// `ctx.completeElicitation()` to the client's `onElicitationComplete` (known ids once, the others
// ignored), against the official SDK 1.x and 2.x clients and servers, and through the gateway.
import { fileURLToPath } from 'node:url';
import {
  Client as SdkClientV2,
  StreamableHTTPClientTransport as SdkHttpV2,
} from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { ProtocolError, UrlElicitationRequiredError, type UrlElicitation } from '../src/index.js';
import { Server, text, type ToolContext } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkedGateway } from './_gateway.js';
import { linkServer } from './_setup.js';

const SDK_SERVER = fileURLToPath(new URL('./fixtures/sdk-url-elicitation-server.mjs', import.meta.url));
const SDK_ELICITATION = {
  mode: 'url',
  elicitationId: 'sdk-connect-1',
  url: 'https://accounts.example.com/connect?elicitation=sdk-connect-1',
  message: 'Connect your Example account',
};
const CONNECT: UrlElicitation = {
  mode: 'url',
  elicitationId: 'tw-connect-1',
  url: 'https://accounts.example.com/connect?elicitation=tw-connect-1',
  message: 'Connect your Example account',
};
const URL_CAPS = { capabilities: { elicitation: { form: {}, url: {} } } };

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const firstText = (result: { content: unknown[] }) => (result.content[0] as { text?: string }).text ?? '';

/** A toolwire server whose `connect` needs CONNECT done, and whose `ask_url` asks a URL elicitation by id. */
function urlServer() {
  const state = { connected: false, contexts: new Map<string, ToolContext>() };
  const server = new Server({ name: 'urls', version: '1.0.0' });
  server.tool('connect', {}, () => {
    if (!state.connected)
      throw new UrlElicitationRequiredError([CONNECT], 'Connect your account first', {
        provider: 'example',
      });
    return text('connected');
  });
  const needsConnect = () => {
    if (!state.connected) throw new UrlElicitationRequiredError([CONNECT], 'Connect your account first');
  };
  server.prompt('connected_prompt', {}, () => {
    needsConnect();
    return 'connected prompt';
  });
  server.resource('example://account', { name: 'account' }, () => {
    needsConnect();
    return 'connected resource';
  });
  server.tool(
    'ask_url',
    { inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    async (args, ctx) => {
      const { id } = args as { id: string };
      state.contexts.set(id, ctx);
      const answer = await ctx.elicit({
        mode: 'url',
        message: 'Open',
        url: `https://example.com/${id}`,
        elicitationId: id,
      });
      return text(answer.action);
    },
  );
  return { server, state };
}

/** A stateless-era client whose user goes through every page it is sent to (and what it was asked). */
function userGoesThrough(state: { connected: boolean }): { asked: unknown[]; options: ClientOptions } {
  const asked: unknown[] = [];
  const options: ClientOptions = {
    protocolVersion: '2026-07-28',
    ...URL_CAPS,
    elicitation: (params) => {
      asked.push(params);
      state.connected = true; // the user went through the page
      return { action: 'accept' };
    },
  };
  return { asked, options };
}

async function overHttp(server: Server, options: ClientOptions): Promise<Client> {
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  const client = new Client({ name: 'host', version: '1.0.0' }, options);
  await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
  cleanup.push(() => client.close());
  return client;
}

describe('a toolwire tool that throws UrlElicitationRequiredError', () => {
  it('reaches a 2025-11-25 client that declared elicitation.url as -32042, with its elicitations', async () => {
    const { server } = urlServer();
    const client = await overHttp(server, { protocolVersion: '2025-11-25', ...URL_CAPS });
    const error = await client.callTool('connect', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(error).toMatchObject({
      code: -32042,
      message: 'Connect your account first',
      elicitations: [CONNECT],
      data: { provider: 'example', elicitations: [CONNECT] },
    });
  });

  it('reaches the SDK 1.x and 2.x clients as -32042 with data.elicitations', async () => {
    for (const [Sdk, Http] of [
      [SdkClient, SdkHttp],
      [SdkClientV2, SdkHttpV2],
    ] as const) {
      const { server } = urlServer();
      const handle = await serveHttp(server, { port: 0 });
      cleanup.push(() => handle.close());
      const sdk = new Sdk({ name: 'sdk', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
      await sdk.connect(new Http(new URL(handle.url)));
      cleanup.push(() => sdk.close());
      const error = await sdk.callTool({ name: 'connect', arguments: {} }).catch((e: unknown) => e);
      // (The SDK clients rebuild the error with its elicitations alone.)
      expect(error).toMatchObject({ code: -32042, data: { elicitations: [CONNECT] } });
    }
  });

  it('is an isError result, without the URL, for a client that cannot show one', async () => {
    for (const options of [
      { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } },
      { protocolVersion: '2025-06-18', ...URL_CAPS },
    ] as ClientOptions[]) {
      const { server } = urlServer();
      const client = await overHttp(server, { ...options, elicitation: () => ({ action: 'cancel' }) });
      const result = await client.callTool('connect', {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /Connect your account first: tool connect needs the user to complete a web page first/,
      );
      expect(firstText(result)).not.toContain('https://');
    }
  });

  it('is asked through input_required in the stateless era: the retry runs the tool again', async () => {
    const { server, state } = urlServer();
    const { asked, options } = userGoesThrough(state);
    const { client } = await linkServer(server, options);
    cleanup.push(() => client.close());
    expect(firstText(await client.callTool('connect', {}))).toBe('connected');
    // The stateless era has no elicitationId.
    expect(asked).toEqual([{ mode: 'url', message: CONNECT.message, url: CONNECT.url }]);
  });

  it('ends with an isError result when the stateless-era user declines, or accepts and the tool still needs it', async () => {
    for (const [action, words] of [
      ['decline', /the user chose to decline/],
      ['accept', /still finds it not done after the user accepted; retry the call once it is/],
    ] as const) {
      const { server } = urlServer();
      const { client } = await linkServer(server, {
        protocolVersion: '2026-07-28',
        ...URL_CAPS,
        elicitation: () => ({ action }),
      });
      cleanup.push(() => client.close());
      const result = await client.callTool('connect', {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(words);
    }
  });

  it('is -32021 for a stateless-era client without elicitation.url', async () => {
    const { server } = urlServer();
    const { client } = await linkServer(server, {
      protocolVersion: '2026-07-28',
      capabilities: { elicitation: { form: {} } },
      elicitation: () => ({ action: 'accept' }),
    });
    cleanup.push(() => client.close());
    await expect(client.callTool('connect', {})).rejects.toMatchObject({ code: -32021 });
  });

  it('refuses to be built with a list the spec does not allow', () => {
    expect(() => new UrlElicitationRequiredError([])).toThrow(TypeError);
    expect(() => new UrlElicitationRequiredError([{ ...CONNECT, url: 'javascript:alert(1)' }])).toThrow(
      /url must be an http: or https: URL/,
    );
    expect(() => new UrlElicitationRequiredError([{ ...CONNECT, elicitationId: '' }])).toThrow(
      /elicitationId/,
    );
  });
});

describe('a prompt or resource reader that throws UrlElicitationRequiredError', () => {
  const getPrompt = (client: Client) =>
    client.getPrompt('connected_prompt', {}).then((r) => (r.messages[0]?.content as { text: string }).text);
  const readAccount = (client: Client) =>
    client.readResource('example://account').then((r) => (r.contents[0] as { text: string }).text);

  it('reaches a 2025-11-25 client as -32042, as the spec lets any request answer', async () => {
    const { server } = urlServer();
    const client = await overHttp(server, { protocolVersion: '2025-11-25', ...URL_CAPS });
    for (const request of [getPrompt, readAccount]) {
      const error = await request(client).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      expect(error).toMatchObject({ code: -32042, elicitations: [CONNECT] });
    }
  });

  it('is asked through input_required in the stateless era (no -32042 there): the retry runs it again', async () => {
    for (const request of [getPrompt, readAccount]) {
      const { server, state } = urlServer();
      const { asked, options } = userGoesThrough(state);
      const client = await overHttp(server, options);
      expect(await request(client)).toMatch(/^connected (prompt|resource)$/);
      expect(asked).toEqual([{ mode: 'url', message: CONNECT.message, url: CONNECT.url }]);
    }
  });

  it('ends with -32603 naming what the stateless-era user did: declined, or accepted while still needed', async () => {
    for (const [action, words] of [
      [
        'decline',
        /^(Prompt connected_prompt|Resource example:\/\/account) needs the user to complete a web page first, and the user chose to decline$/,
      ],
      [
        'accept',
        /^Connect your account first: (prompt connected_prompt|resource example:\/\/account) still finds it not done after the user accepted; retry the request once it is$/,
      ],
    ] as const) {
      const { server } = urlServer();
      const client = await overHttp(server, {
        protocolVersion: '2026-07-28',
        ...URL_CAPS,
        elicitation: () => ({ action }),
      });
      for (const request of [getPrompt, readAccount]) {
        const error = await request(client).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProtocolError);
        expect(error).not.toBeInstanceOf(UrlElicitationRequiredError);
        expect(error).toMatchObject({ code: -32603, message: expect.stringMatching(words) as unknown });
      }
    }
  });

  it('is -32021 for a stateless-era client without elicitation.url', async () => {
    const { server } = urlServer();
    const client = await overHttp(server, {
      protocolVersion: '2026-07-28',
      capabilities: { elicitation: { form: {} } },
      elicitation: () => ({ action: 'accept' }),
    });
    for (const request of [getPrompt, readAccount]) {
      await expect(request(client)).rejects.toMatchObject({ code: -32021 });
    }
  });
});

describe('ctx.completeElicitation()', () => {
  it('tells the client once, after the call ended; the client ignores unknown and completed ids', async () => {
    const { server, state } = urlServer();
    const completed: string[] = [];
    const client = await overHttp(server, {
      protocolVersion: '2025-11-25',
      ...URL_CAPS,
      elicitation: () => ({ action: 'accept' }),
      onElicitationComplete: (id) => completed.push(id),
    });
    expect(firstText(await client.callTool('ask_url', { id: 'tw-2' }))).toBe('accept');
    const ctx = state.contexts.get('tw-2')!;
    await ctx.completeElicitation('never-asked');
    await ctx.completeElicitation('tw-2');
    await ctx.completeElicitation('tw-2');
    await expect(ctx.completeElicitation('')).rejects.toThrow(TypeError);
    // A later elicitation completes too: every notification before it has been handled by then.
    await client.callTool('ask_url', { id: 'tw-3' });
    await state.contexts.get('tw-3')!.completeElicitation('tw-3');
    await vi.waitFor(() => expect(completed).toContain('tw-3'), { timeout: 5000 });
    expect(completed).toEqual(['tw-2', 'tw-3']);
  });

  it('sends nothing in the stateless era', async () => {
    const { server, state } = urlServer();
    const completed: string[] = [];
    const { client } = await linkServer(server, {
      protocolVersion: '2026-07-28',
      ...URL_CAPS,
      elicitation: () => ({ action: 'accept' }),
      onElicitationComplete: (id) => completed.push(id),
    });
    cleanup.push(() => client.close());
    await client.callTool('ask_url', { id: 'tw-4' });
    await state.contexts.get('tw-4')!.completeElicitation('tw-4');
    await client.callTool('ask_url', { id: 'tw-5' }); // a round trip after it
    expect(completed).toEqual([]);
  });
});

async function sdkServerClient(
  flags: readonly string[],
  options: ClientOptions = {},
): Promise<{ client: Client; completed: string[] }> {
  const completed: string[] = [];
  const client = new Client(
    { name: 'host', version: '1.0.0' },
    {
      protocolVersion: '2025-11-25',
      ...URL_CAPS,
      onElicitationComplete: (id) => completed.push(id),
      ...options,
    },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SDK_SERVER, ...flags],
      stderr: 'ignore',
    }),
  );
  cleanup.push(() => client.close());
  return { client, completed };
}

for (const [sdk, flags] of [
  ['1.x', []],
  ['2.x', ['--v2']],
] as const) {
  describe(`a toolwire client and the SDK ${sdk} server`, () => {
    it("gets the server's -32042 as UrlElicitationRequiredError, then its completion once", async () => {
      const { client, completed } = await sdkServerClient(flags);
      const error = await client.callTool('needs_connect', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      expect((error as UrlElicitationRequiredError).elicitations).toEqual([SDK_ELICITATION]);
      // The server announces `never-asked`, then the id twice, before it answers.
      await client.callTool('finish_connect', {});
      expect(completed).toEqual(['sdk-connect-1']);
      expect(firstText(await client.callTool('needs_connect', {}))).toBe('connected');
    });

    it('ignores a completion for an id it was never given', async () => {
      const { client, completed } = await sdkServerClient(flags);
      await client.callTool('finish_connect', {});
      expect(completed).toEqual([]);
    });

    it('takes a -32042 whose URL no person may be sent to as a plain ProtocolError', async () => {
      const { client } = await sdkServerClient(flags);
      const error = await client.callTool('bad_url_elicitation', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).not.toBeInstanceOf(UrlElicitationRequiredError);
      expect(error).toMatchObject({ code: -32042 });
    });
  });
}

describe('the gateway in front of the SDK 1.x server', () => {
  async function throughGateway(options: ClientOptions) {
    const completed: string[] = [];
    const onElicitationComplete = (id: string) => void completed.push(id);
    const client = await linkedGateway('sdk', [SDK_SERVER], { onElicitationComplete, ...options }, cleanup);
    return { client, completed };
  }

  it("passes -32042 to a caller that takes it, and the upstream's completion to that caller, once", async () => {
    const { client, completed } = await throughGateway({ protocolVersion: '2025-11-25', ...URL_CAPS });
    const error = await client.callTool('sdk__needs_connect', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as UrlElicitationRequiredError).elicitations).toEqual([SDK_ELICITATION]);
    await client.callTool('sdk__finish_connect', {});
    await vi.waitFor(() => expect(completed).toEqual(['sdk-connect-1']), { timeout: 5000 });
    expect(firstText(await client.callTool('sdk__needs_connect', {}))).toBe('connected');
    expect(completed).toEqual(['sdk-connect-1']);
  });

  it("routes the completion of a URL elicitation it relayed during a call to that call's caller", async () => {
    const asked: unknown[] = [];
    const { client, completed } = await throughGateway({
      protocolVersion: '2025-11-25',
      ...URL_CAPS,
      elicitation: (params) => (asked.push(params), { action: 'accept' }),
    });
    expect(firstText(await client.callTool('sdk__ask_connect', {}))).toBe('accept');
    expect(asked).toEqual([{ ...SDK_ELICITATION, elicitationId: 'sdk-ask-1' }]);
    await vi.waitFor(() => expect(completed).toEqual(['sdk-ask-1']), { timeout: 5000 });
  });

  it('gives a caller without URL elicitation an isError result, and a stateless-era caller the question', async () => {
    const formOnly = await throughGateway({
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      elicitation: () => ({ action: 'cancel' }),
    });
    const result = await formOnly.client.callTool('sdk__needs_connect', {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).not.toContain('https://');

    const asked: unknown[] = [];
    const stateless = await throughGateway({
      protocolVersion: '2026-07-28',
      ...URL_CAPS,
      elicitation: (params) => (asked.push(params), { action: 'decline' }),
    });
    const declined = await stateless.client.callTool('sdk__needs_connect', {});
    expect(firstText(declined)).toMatch(/the user chose to decline/);
    const { elicitationId: _id, ...question } = SDK_ELICITATION;
    expect(asked).toEqual([question]);
  });

  it("does not pass on an upstream's -32042 whose URL no person may be sent to", async () => {
    const { client } = await throughGateway({ protocolVersion: '2025-11-25', ...URL_CAPS });
    const result = await client.callTool('sdk__bad_url_elicitation', {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/asked for a URL elicitation the gateway does not pass on/);
  });
});

describe('a URL-mode elicitation/create the client did not accept', () => {
  /** A raw server that asks for URL elicitation `id`, then says it completed; what the client heard. */
  async function askThenComplete(options: ClientOptions, id: string) {
    const [clientEnd, serverEnd] = createLinkedPair();
    const server = new Peer();
    server.setRequestHandler('initialize', () => ({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'asker', version: '1' },
    }));
    await server.connect(serverEnd);
    const completed: string[] = [];
    const client = new Client(
      { name: 'host', version: '1.0.0' },
      { protocolVersion: '2025-11-25', onElicitationComplete: (done) => completed.push(done), ...options },
    );
    await client.connect(clientEnd);
    cleanup.push(() => client.close());
    const params = { mode: 'url', elicitationId: id, url: 'https://example.com/flow', message: 'Sign in' };
    const answer = await server.request('elicitation/create', params).then(
      (result) => ({ result }),
      (error: unknown) => ({ error: (error as { code?: unknown }).code }),
    );
    await server.notify('notifications/elicitation/complete', { elicitationId: id });
    await server.request('ping', {}); // every notification before it has been handled by then
    return { answer, completed };
  }

  it('does not hear its completion when refused, declined or cancelled; an accepted one it does', async () => {
    const formOnly = await askThenComplete(
      { capabilities: { elicitation: { form: {} } }, elicitation: () => ({ action: 'accept', content: {} }) },
      'e-1',
    );
    expect(formOnly).toEqual({ answer: { error: -32602 }, completed: [] });
    const noHandler = await askThenComplete({}, 'e-2');
    expect(noHandler).toEqual({ answer: { error: -32601 }, completed: [] });
    const declined = await askThenComplete(
      { ...URL_CAPS, elicitation: () => ({ action: 'decline' }) },
      'e-3',
    );
    expect(declined).toEqual({ answer: { result: { action: 'decline' } }, completed: [] });
    const accepted = await askThenComplete({ ...URL_CAPS, elicitation: () => ({ action: 'accept' }) }, 'e-4');
    expect(accepted).toEqual({ answer: { result: { action: 'accept' } }, completed: ['e-4'] });
  });
});
