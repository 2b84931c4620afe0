// A server whose tool's outputSchema holds hundreds of regular expressions: ajv's compilation time grows with
// the square of their number (4,000 patterns took 6-10 s of blocked event loop), so past 256 the client does
// not compile the schema, and (as for a schema over the other bounds) checks nothing against it.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const SERVER = fileURLToPath(new URL('./fixtures/many-patterns-server.mjs', import.meta.url));

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(patterns: number): Promise<Client> {
  const client = new Client({ name: 'patterns-test', version: '1.0.0' }, { protocolVersion: '2025-06-18' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, String(patterns)],
      stderr: 'ignore',
    }),
  );
  return client;
}

describe('an outputSchema with many regular expressions', () => {
  it('checks a result against one with 256', async () => {
    const client = await connect(256);
    await expect(client.callTool('wide', {})).rejects.toMatchObject({
      code: 'OUTPUT_SCHEMA_MISMATCH',
      message: expect.stringMatching(/\/p1 must match pattern/),
    });
  });

  it('does not compile one with 257: it checks nothing, as any schema the client cannot use', async () => {
    const client = await connect(257);
    await expect(client.callTool('wide', {})).resolves.toMatchObject({ structuredContent: { p1: 'zz' } });
  });
});
