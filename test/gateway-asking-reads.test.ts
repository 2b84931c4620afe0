// The gateway relays an upstream's questions during prompts/get and resources/read to the caller that
// made the request, as it does during a call: in the handshake era as requests to the caller, in the
// stateless era as the caller's own input_required. Upstreams are real HTTP servers in this process,
// met in either era; the caller is a toolwire client linked to the gateway, in either era. Before, the
// gateway's client answered such questions itself (declined, no roots), and the caller never saw them;
// now a question no caller may be asked is refused with -32602 saying why (nobody declined it).
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { createGateway, type Gateway } from '../src/gateway/index.js';
import { UrlElicitationRequiredError, type Revision, type UrlElicitation } from '../src/index.js';
import { Server, type PromptContext } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serveHttp } from '../src/transports/http/index.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const CONNECT: UrlElicitation = {
  mode: 'url',
  elicitationId: 'connect-1',
  url: 'https://accounts.example.com/connect?elicitation=connect-1',
  message: 'Connect your Example account',
};

/** An upstream whose prompt and resource ask the user, the model and the client's roots. */
function notesUpstream() {
  const state = { connected: false, contexts: [] as PromptContext[], runs: { brief: 0, today: 0 } };
  const server = new Server({ name: 'notes', version: '1.0.0' });
  server.prompt('brief', {}, async (_args, ctx) => {
    state.runs.brief++;
    const answer = await ctx.elicit({
      message: 'Which topic?',
      requestedSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    });
    return `Brief me on ${String(answer.content?.topic ?? answer.action)}`;
  });
  server.resource('notes://today', { name: 'today' }, async (_uri, ctx) => {
    state.runs.today++;
    const sampled = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }],
      maxTokens: 10,
    });
    const { roots } = await ctx.listRoots();
    return `${'text' in sampled.content ? sampled.content.text : '?'} [${roots.map((r) => r.uri).join(',')}]`;
  });
  server.prompt('account', {}, (_args, ctx) => {
    state.contexts.push(ctx);
    if (!state.connected) throw new UrlElicitationRequiredError([CONNECT], 'Connect your account first');
    return 'connected';
  });
  return { server, state };
}

async function gatewayFor(server: Server, upstreamVersion: 'auto' | Revision): Promise<Gateway> {
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  const gateway = createGateway(
    {
      upstreams: { notes: { url: handle.url, protocolVersion: upstreamVersion } },
      policy: { default: 'allow' },
    },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

async function caller(gateway: Gateway, options: ClientOptions): Promise<Client> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await gateway.server.connect(serverEnd);
  const client = new Client({ name: 'host', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  cleanup.push(() => client.close());
  return client;
}

const promptText = (result: { messages: { content: unknown }[] }) =>
  (result.messages[0]?.content as { text?: string }).text;
const readText = (result: { contents: unknown[] }) => (result.contents[0] as { text?: string }).text;

const ANSWERING: ClientOptions = {
  capabilities: { elicitation: { form: {}, url: {} }, sampling: {} },
  elicitation: (params) => ({
    action: 'accept',
    content: { topic: params.message === 'Which topic?' ? 'tides' : '?' },
  }),
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'calm' }, model: 'm' }),
  roots: [{ uri: 'file:///notes' }],
};

for (const upstreamVersion of ['auto', '2025-11-25'] as const) {
  for (const callerVersion of ['2025-11-25', '2026-07-28'] as const) {
    describe(`an upstream met as ${upstreamVersion}, a caller of ${callerVersion}`, () => {
      it("gets the caller's answers to the upstream's questions in prompts/get and resources/read", async () => {
        const { server } = notesUpstream();
        const gateway = await gatewayFor(server, upstreamVersion);
        const client = await caller(gateway, { protocolVersion: callerVersion, ...ANSWERING });
        expect(promptText(await client.getPrompt('notes__brief', {}))).toBe('Brief me on tides');
        expect(readText(await client.readResource('notes://today'))).toBe('calm [file:///notes]');
      });
    });
  }
}

// (A stateless-era upstream runs its getter again on each of its own rounds, by design: met as 2025-11-25.)
describe('a stateless-era caller', () => {
  it('has its prompt get and resource read run once upstream over its rounds (parked between them)', async () => {
    const { server, state } = notesUpstream();
    const gateway = await gatewayFor(server, '2025-11-25');
    let rounds = 0;
    const client = await caller(gateway, {
      protocolVersion: '2026-07-28',
      ...ANSWERING,
      sampling: () => {
        rounds++;
        return { role: 'assistant', content: { type: 'text', text: 'calm' }, model: 'm' };
      },
    });
    expect(promptText(await client.getPrompt('notes__brief', {}))).toBe('Brief me on tides');
    // The reader asks the model, then (answered) the roots: two rounds, one read upstream.
    expect(readText(await client.readResource('notes://today'))).toBe('calm [file:///notes]');
    expect(rounds).toBe(1);
    expect(state.runs).toEqual({ brief: 1, today: 1 });
  });
});

describe('a caller that declared nothing', () => {
  it("is asked nothing: the upstream's question is refused with -32602 saying why, not declined", async () => {
    const { server, state } = notesUpstream();
    const gateway = await gatewayFor(server, 'auto');
    const client = await caller(gateway, { protocolVersion: '2026-07-28' });
    // Declining would tell the upstream a person said no ('Brief me on decline', before); nobody was asked.
    await expect(client.getPrompt('notes__brief', {})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'The gateway could not relay elicitation/create: the client of the call did not declare elicitation',
      ) as unknown,
    });
    expect(state.runs.brief).toBe(1);
  });
});

describe("an upstream prompt's UrlElicitationRequiredError", () => {
  it('reaches a 2025-11-25 caller as -32042, and the completion reaches that caller', async () => {
    const { server, state } = notesUpstream();
    const gateway = await gatewayFor(server, '2025-11-25');
    const completed: string[] = [];
    const client = await caller(gateway, {
      protocolVersion: '2025-11-25',
      ...ANSWERING,
      onElicitationComplete: (id) => completed.push(id),
    });
    const error = await client.getPrompt('notes__account', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(error).toMatchObject({ code: -32042, elicitations: [CONNECT] });
    await state.contexts[0]!.completeElicitation(CONNECT.elicitationId);
    await expect.poll(() => completed, { timeout: 5000 }).toEqual([CONNECT.elicitationId]);
  });

  for (const upstreamVersion of ['auto', '2025-11-25'] as const) {
    it(`is asked of a stateless-era caller through input_required (upstream ${upstreamVersion})`, async () => {
      const { server, state } = notesUpstream();
      const gateway = await gatewayFor(server, upstreamVersion);
      const asked: unknown[] = [];
      const client = await caller(gateway, {
        protocolVersion: '2026-07-28',
        ...ANSWERING,
        elicitation: (params) => {
          asked.push(params);
          state.connected = true; // the user went through the page
          return { action: 'accept' };
        },
      });
      expect(promptText(await client.getPrompt('notes__account', {}))).toBe('connected');
      expect(asked).toEqual([{ mode: 'url', message: CONNECT.message, url: CONNECT.url }]);
    });
  }
});
