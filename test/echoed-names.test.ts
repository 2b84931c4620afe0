// A server's errors that repeat what the caller sent cut it to 200 characters and "…", over Streamable HTTP:
// an unknown tool, prompt, resource or completion reference 1 MiB long (and a prompt argument's name) was
// echoed whole, a 1 MiB request answered with a 1 MiB message (the client kept 64 Ki characters of it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import { Server } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';

const MIB = 1024 * 1024;
const cut = (char: string) => `${char.repeat(200)}…`;

let handle: HttpServerHandle;
let client: Client;

beforeAll(async () => {
  const server = new Server({ name: 'echoes', version: '1.0.0' });
  server.tool('known', {}, () => 'ok');
  server.prompt('review', { arguments: [{ name: 'code' }] }, ({ code }) => `Review: ${code ?? ''}`);
  server.resource('test://readme', { name: 'readme' }, () => '# Hello');
  handle = await serveHttp(server, { port: 0 });
  client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
});

afterAll(async () => {
  await client?.close();
  await handle?.close();
});

async function refusal(request: Promise<unknown>): Promise<ProtocolError> {
  const error = await request.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

describe('names 1 MiB long, echoed by the server’s errors', () => {
  it('an unknown tool: -32602 with 200 characters of its name', async () => {
    const error = await refusal(client.callTool('t'.repeat(MIB), {}));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(`Unknown tool: ${cut('t')}`);
  });

  it('an unknown prompt, and an argument of a known one that is not a string', async () => {
    const unknown = await refusal(client.getPrompt('p'.repeat(MIB)));
    expect(unknown.message).toBe(`Invalid params: unknown prompt "${cut('p')}"`);
    const argument = await refusal(
      client.getPrompt('review', { ['a'.repeat(MIB)]: 1 } as unknown as Record<string, string>),
    );
    expect(argument.message).toBe(`Invalid params: argument "${cut('a')}" must be a string`);
  });

  it('an unknown resource: -32002 whose data.uri is 200 characters of it', async () => {
    const uri = `test://${'r'.repeat(MIB)}`;
    const error = await refusal(client.readResource(uri));
    expect(error.code).toBe(-32002);
    expect(error.data).toEqual({ uri: `${uri.slice(0, 200)}…` });
  });

  it('a completion of an unknown prompt, and of an argument a known one does not have', async () => {
    const unknown = await refusal(
      client.complete({ type: 'ref/prompt', name: 'q'.repeat(MIB) }, { name: 'code', value: '' }),
    );
    expect(unknown.message).toBe(`Invalid params: unknown prompt "${cut('q')}"`);
    const argument = await refusal(
      client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'n'.repeat(MIB), value: '' }),
    );
    expect(argument.message).toBe(`Invalid params: prompt "review" has no argument "${cut('n')}"`);
  });
});
