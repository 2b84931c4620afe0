// A toolwire client's own request `_meta` on `prompts/get`, `resources/read` and `completion/complete`
// (`{ meta }`, as `callTool` has): to an official SDK 1.x server over stdio (handshake era), whose prompt and resource answer with the
// `_meta` they got, and to a toolwire server in the stateless era (2026-07-28), whose every request carries
// the era's keys (and whose completer reads it in both eras). The client's own keys win: a `progressToken` given in `meta` is left out; a `meta` that is
// no JSON object is refused before anything is sent.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server } from '../src/server/index.js';
import type { JsonObject } from '../src/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer } from './_setup.js';

const META_SERVER = fileURLToPath(new URL('./fixtures/sdk-meta-server.mjs', import.meta.url));

const MINE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  'com.example/tenant': 'acme',
};

const promptSaw = (result: { messages: { content: unknown }[] }) =>
  JSON.parse((result.messages[0]!.content as { text: string }).text) as unknown;
const readSaw = (result: { contents: unknown[] }) =>
  JSON.parse((result.contents[0] as { text: string }).text) as unknown;

describe('to an SDK 1.x server (handshake era, stdio)', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'host', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [META_SERVER], stderr: 'ignore' }),
    );
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it('sends getPrompt’s meta as the request’s _meta, without a progressToken given there', async () => {
    const result = await client.getPrompt('meta', {}, { meta: { ...MINE, progressToken: 'not-mine' } });
    expect(promptSaw(result)).toEqual(MINE);
  });

  it('sends readResource’s meta as the request’s _meta, without a progressToken given there', async () => {
    const result = await client.readResource('meta://v1', { meta: { ...MINE, progressToken: 7 } });
    expect(readSaw(result)).toEqual(MINE);
  });

  it('sends no _meta when none is given', async () => {
    expect(promptSaw(await client.getPrompt('meta'))).toBeNull();
    expect(readSaw(await client.readResource('meta://v1'))).toBeNull();
  });

  it.each([
    ['null', null],
    ['an array', [MINE]],
    ['a string', 'traceparent'],
  ])('refuses a meta that is %s with a TypeError, for every request that takes one', async (what, meta) => {
    const bad = { meta } as unknown as { meta: JsonObject };
    const message = `meta must be a JSON object (the request's _meta), not ${what}`;
    await expect(client.getPrompt('meta', {}, bad)).rejects.toThrow(new TypeError(message));
    await expect(client.readResource('meta://v1', bad)).rejects.toThrow(new TypeError(message));
    await expect(client.callTool('meta', {}, bad)).rejects.toThrow(new TypeError(message));
  });
});

describe('to a toolwire server (stateless era)', () => {
  const server = new Server({ name: 'echo', version: '1.0.0' });
  const echo = (meta: JsonObject | undefined) => JSON.stringify(meta ?? null);
  server.prompt('meta', {}, (_args, ctx) => echo(ctx.meta));
  server.resource('meta://v1', { name: 'meta' }, (uri, ctx) => ({ uri, text: echo(ctx.meta) }));
  let client: Client;

  beforeAll(async () => {
    ({ client } = await linkServer(server, { protocolVersion: '2026-07-28' }));
  });

  afterAll(async () => {
    await client?.close();
    await server.close();
  });

  it('sends its keys beside the era’s, which win over the caller’s', async () => {
    const meta = { ...MINE, 'io.modelcontextprotocol/protocolVersion': '2024-11-05' };
    const got = promptSaw(await client.getPrompt('meta', {}, { meta })) as JsonObject;
    expect(got).toMatchObject({ ...MINE, 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
    const read = readSaw(await client.readResource('meta://v1', { meta })) as JsonObject;
    expect(read).toMatchObject({ ...MINE, 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'completion/complete to a toolwire server (%s)',
  (era) => {
    const server = new Server({ name: 'echo', version: '1.0.0' });
    const own = (meta: JsonObject | undefined) =>
      Object.fromEntries(
        Object.entries(meta ?? {}).filter(([key]) => !key.startsWith('io.modelcontextprotocol/')),
      );
    server.prompt(
      'meta',
      { arguments: [{ name: 'word', complete: (_v, ctx) => [JSON.stringify(own(ctx.meta))] }] },
      () => 'x',
    );
    let client: Client;

    beforeAll(async () => {
      ({ client } = await linkServer(server, { protocolVersion: era }));
    });

    afterAll(async () => {
      await client?.close();
      await server.close();
    });

    it('sends complete’s meta as the request’s _meta, without a progressToken given there', async () => {
      const ref = { type: 'ref/prompt', name: 'meta' } as const;
      const meta = { ...MINE, progressToken: 'not-mine' };
      const { values } = await client.complete(ref, { name: 'word', value: '' }, undefined, { meta });
      expect(JSON.parse(values[0]!)).toEqual(MINE);
    });
  },
);
