// A server that makes its client fail at full speed (test/fixtures/error-flood-server.mjs) gets a few
// reports per kind through onError, then one REPORTS_DROPPED per kind and interval saying how many more.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, ClientError, type ClientOptions } from '../src/client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const FLOOD = fileURLToPath(new URL('./fixtures/error-flood-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A client of the flooding server, its onError calls, and a promise of the server's closing "done" log. */
async function flooded(
  args: string[],
  options: ClientOptions,
  transport: { maxQueuedMessages?: number } = {},
  errors: Error[] = [],
) {
  let done!: () => void;
  const logged = new Promise<void>((resolve) => (done = resolve));
  const client = new Client(
    { name: 'reports', version: '1' },
    {
      protocolVersion: '2025-11-25',
      onError: (error) => errors.push(error),
      onLog: (params) => params.data === 'done' && done(),
      ...options,
    },
  );
  cleanup.push(() => client.close());
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FLOOD, ...args],
      stderr: 'ignore',
      shutdownTimeoutMs: 200,
      ...transport,
    }),
  );
  return { client, errors, logged };
}

describe('Client onError, a server failing the client at full speed', () => {
  it('reports the first perKind answers to unknown ids and then how many more came', async () => {
    const { client, errors, logged } = await flooded(['unknown-ids', '200'], {
      errorReports: { perKind: 3, intervalMs: 60_000 },
    });
    await logged; // the answers came before it, each handled as it was read
    expect(errors.map((e) => e.message)).toEqual([
      'Received a response for an unknown request id 1000000',
      'Received a response for an unknown request id 1000001',
      'Received a response for an unknown request id 1000002',
    ]);
    await client.close(); // says what was dropped at once
    expect(errors).toHaveLength(4);
    const summary = errors[3];
    expect(summary).toBeInstanceOf(ClientError);
    expect(summary).toMatchObject({
      code: 'REPORTS_DROPPED',
      details: {
        dropped: 197,
        intervalMs: 60_000,
        kind: 'Error: Received a response for an unknown request id #',
      },
    });
  });

  it('reports the first perKind answers refused by a server not reading, then one summary per interval', async () => {
    let summarized!: () => void;
    const summary = new Promise<void>((resolve) => (summarized = resolve));
    const errors: Error[] = [];
    await flooded(
      ['deaf-pings', '5000'],
      {
        errorReports: { perKind: 3, intervalMs: 200 },
        onError: (error) => {
          errors.push(error);
          if (error instanceof ClientError && error.code === 'REPORTS_DROPPED') summarized();
        },
      },
      { maxQueuedMessages: 4 },
      errors,
    );
    await summary;
    // 5,000 answers of ≈50 bytes: the pipe takes the first ≈1,300, the queue 4, the rest are refused.
    expect(errors.slice(0, 3).map((e) => (e as ClientError).code)).toEqual(Array(3).fill('SEND_FAILED'));
    expect(errors[3]).toMatchObject({
      code: 'REPORTS_DROPPED',
      details: { kind: 'TransportError SEND_FAILED' },
    });
    expect((errors[3] as ClientError).details).toMatchObject({ dropped: expect.any(Number) });
    expect(((errors[3] as ClientError).details as { dropped: number }).dropped).toBeGreaterThan(1000);
  });
});
