// Resource templates against hostile URIs, on the wire: a URI of a megabyte against templates a backtracking
// regular expression took minutes on (the server answers at once, and other sessions are not held up), and
// `{name}` values that decode to more than one path segment (`..%2F`), over Streamable HTTP in both eras
// and through the gateway.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ErrorCode, ProtocolError } from '../src/protocol/errors.js';
import { createGateway } from '../src/gateway/index.js';
import { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { open, rpcTo } from './_http.js';
import { answer, stateless } from './_http-stateless.js';

/** A backtracking RegExp took 45 s on 4,000 characters of `x://{a}{b}{c}`; linear matching, milliseconds. */
const PROMPTLY_MS = 5_000;
const MEGABYTE_URIS = [
  `file:///${'a.'.repeat(500_000)}/`,
  `db://${'-'.repeat(1_000_000)}/`,
  `x://${'a'.repeat(1_000_000)}/`,
];
const ESCAPES = ['notes://..%2Fsecret.txt', 'notes://%2E%2E%2Fsecret.txt', 'notes://%2e%2e', 'notes://a%00b'];

/** A server with the templates of the audit, and the `{name}` values its notes reader was given. */
function templatesServer(): { server: Server; names: string[] } {
  const names: string[] = [];
  const server = new Server({ name: 'templates', version: '1.0.0' });
  const echo = (uri: string) => uri.slice(0, 40);
  server.resourceTemplate('file:///{name}.{ext}', { name: 'file' }, echo);
  server.resourceTemplate('db://{table}-{id}', { name: 'row' }, echo);
  server.resourceTemplate('x://{a}{b}{c}', { name: 'abc' }, echo);
  server.resourceTemplate('notes://{name}', { name: 'note' }, (_uri, { name }) => {
    names.push(String(name));
    return `note ${name}`;
  });
  return { server, names };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(server: Server): Promise<HttpServerHandle> {
  const handle = await serveHttp(server, { port: 0 });
  closers.push(() => handle.close());
  return handle;
}

const session = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });

describe('resource templates over Streamable HTTP', () => {
  it.each(MEGABYTE_URIS.map((uri) => [uri.slice(0, 12), uri]))(
    'answers a 1 MB URI (%s…) at once, while another session waits for nothing',
    async (_prefix, uri) => {
      const { url } = await serve(templatesServer().server);
      const [reader, other] = await Promise.all([open(url), open(url)]);
      const started = performance.now();
      const read = rpcTo(url, 'resources/read', { uri }, {}, session(reader));
      const ping = rpcTo(url, 'ping', {}, {}, session(other)).then(() => performance.now() - started);
      expect((await read).error).toMatchObject({ code: ErrorCode.ResourceNotFound });
      expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
      expect(await ping).toBeLessThan(PROMPTLY_MS);
    },
  );

  it('reads the values of a URI that matches, as before', async () => {
    const { server, names } = templatesServer();
    const { url } = await serve(server);
    const id = await open(url);
    const answered = await rpcTo(url, 'resources/read', { uri: 'notes://..todo.md' }, {}, session(id));
    expect(answered.result).toEqual({ contents: [{ uri: 'notes://..todo.md', text: 'note ..todo.md' }] });
    expect(names).toEqual(['..todo.md']);
  });

  it.each(ESCAPES)('answers %s as not found in the handshake era, its reader never called', async (uri) => {
    const { server, names } = templatesServer();
    const { url } = await serve(server);
    const id = await open(url);
    const answered = await rpcTo(url, 'resources/read', { uri }, {}, session(id));
    expect(answered.error).toMatchObject({ code: ErrorCode.ResourceNotFound });
    expect(names).toEqual([]);
  });

  it.each(ESCAPES)('answers %s with -32602 in 2026-07-28, its reader never called', async (uri) => {
    const { server, names } = templatesServer();
    const { url } = await serve(server);
    const answered = await answer(await stateless(url, { method: 'resources/read', params: { uri } }));
    expect(answered.error).toMatchObject({ code: ErrorCode.InvalidParams });
    expect(names).toEqual([]);
  });
});

describe('upstream resource templates through the gateway', () => {
  async function throughGateway(): Promise<{ client: Client; names: string[] }> {
    const { server, names } = templatesServer();
    const web = await serve(server);
    const gateway = createGateway(
      { upstreams: { web: { url: web.url } }, policy: { default: 'allow' } },
      { onLog: () => undefined },
    );
    closers.push(() => gateway.close());
    await gateway.start();
    const [clientEnd, serverEnd] = createLinkedPair();
    await gateway.server.connect(serverEnd);
    const client = new Client({ name: 'model', version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(clientEnd);
    closers.push(() => client.close());
    return { client, names };
  }

  it('answers a 1 MB read and a 4,096-character subscription of a cubic template at once', async () => {
    const { client } = await throughGateway();
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toContain('x://{a}{b}{c}');
    let started = performance.now();
    const read = await client.readResource(MEGABYTE_URIS[2]!).catch((error: unknown) => error);
    expect(read).toBeInstanceOf(ProtocolError);
    expect(read).toMatchObject({ code: ErrorCode.ResourceNotFound });
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    // The gateway looks a subscribed URI's upstream up among the templates it exposes.
    started = performance.now();
    await client.subscribeResource(`x://${'a'.repeat(4_091)}/`);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it('does not let a {name} value climb out of its segment', async () => {
    const { client, names } = await throughGateway();
    for (const uri of ESCAPES) {
      await expect(client.readResource(uri)).rejects.toMatchObject({ code: ErrorCode.ResourceNotFound });
    }
    expect(names).toEqual([]);
  });
});
