// What a stdio client holds for a server that stopped reading its stdin (test/fixtures/deaf-server.mjs
// goes deaf at its first tools/call): bounded by maxQueuedBytes and maxQueuedMessages, past which a
// request is refused at once (SEND_FAILED) instead of queued; and a gateway's stdio upstream so stuck.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, type Gateway } from '../src/gateway/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const DEAF = fileURLToPath(new URL('./fixtures/deaf-server.mjs', import.meta.url));
const KiB = 1024;

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** The processes of DEAF this process started that still run (Linux: /proc). */
function deafChildren(): number[] {
  const dir = `/proc/${process.pid}/task`;
  const children = readFileSync(`${dir}/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(DEAF);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** A call's outcome: answered, or the error code it failed with. */
const outcome = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (error: { code?: string }) => error.code ?? 'error',
  );

async function deafClient(limits: { maxQueuedBytes?: number; maxQueuedMessages?: number }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DEAF],
    stderr: 'ignore',
    shutdownTimeoutMs: 200,
    ...limits,
  });
  const client = new Client({ name: 'backlog', version: '1' }, { protocolVersion: '2025-11-25' });
  cleanup.push(() => client.close());
  await client.connect(transport);
  return client;
}

describe('StdioClientTransport, a server that stopped reading its stdin', () => {
  it('refuses requests at once once maxQueuedBytes wait, and holds no more than that', async () => {
    const client = await deafClient({ maxQueuedBytes: 512 * KiB });
    const big = 'x'.repeat(100 * KiB);
    // The first call makes the server deaf; it and the next few wait in the queue, the rest are refused.
    const calls = Array.from({ length: 30 }, () => outcome(client.callTool('sink', { big })));
    const last = await calls.at(-1);
    expect(last).toBe('SEND_FAILED');
    await expect(client.callTool('sink', { big })).rejects.toThrow(
      /the server process is not reading its stdin \(\d+ bytes in \d+ messages wait; limits: 524288 bytes, 4096 messages\)/,
    );
    await client.close();
    const outcomes = await Promise.all(calls);
    // 512 KiB hold five 100 KiB lines and a sixth is let in (the queue is under its limit when it comes).
    expect(outcomes.filter((o) => o === 'SEND_FAILED')).toHaveLength(30 - 6);
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill('CONNECTION_CLOSED'));
  });

  it('refuses requests at once once maxQueuedMessages wait', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [DEAF],
      stderr: 'ignore',
      shutdownTimeoutMs: 200,
      maxQueuedMessages: 4,
    });
    cleanup.push(() => transport.close());
    await transport.start();
    // Sent in one tick: none of them has reached the pipe yet, so each one counts.
    const sends = Array.from({ length: 6 }, (_, id) =>
      outcome(transport.send({ jsonrpc: '2.0', id, method: 'ping' })),
    );
    expect(await Promise.all(sends)).toEqual([...Array(4).fill('answered'), 'SEND_FAILED', 'SEND_FAILED']);
    // Once they reached the pipe, sending goes on.
    await expect(transport.send({ jsonrpc: '2.0', id: 6, method: 'ping' })).resolves.toBeUndefined();
  });
});

/** A gateway in front of test/fixtures/deaf-server.mjs, and a caller connected to it in memory. */
async function deafGateway(): Promise<{ gateway: Gateway; caller: Client }> {
  const gateway = createGateway(
    {
      upstreams: { deaf: { command: process.execPath, args: [DEAF], stderr: 'ignore' } },
      policy: { default: 'allow' },
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const [clientEnd, serverEnd] = createLinkedPair();
  await gateway.server.connect(serverEnd);
  const caller = new Client({ name: 'caller', version: '1' });
  cleanup.push(() => caller.close());
  await caller.connect(clientEnd);
  return { gateway, caller };
}

describe('a gateway whose stdio upstream stopped reading its stdin', () => {
  it('answers the calls past the limit at once with an isError result, holding no more', async () => {
    const { gateway, caller } = await deafGateway();
    const big = 'x'.repeat(1024 * KiB);
    // 8 MiB (the default limit) hold nine of these; the tenth and later are refused.
    const calls = Array.from({ length: 12 }, () => caller.callTool('deaf__sink', { big }));
    const last = await calls.at(-1);
    expect(last?.isError).toBe(true);
    expect(last?.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(/^Upstream deaf failed to run sink: .*not reading its stdin/),
      },
    ]);
    // Taken as lost: its process is shut down (the calls it held fail) and started again later.
    expect(gateway.upstreams()[0]).toMatchObject({ name: 'deaf', status: 'down' });
    await Promise.allSettled(calls);
  });

  it.runIf(process.platform === 'linux')(
    "has shut the lost upstream's process down once it is closed (a host exiting then left it running)",
    async () => {
      const { gateway, caller } = await deafGateway();
      const started = deafChildren();
      expect(started).toHaveLength(1);
      const big = 'x'.repeat(1024 * KiB);
      const calls = Array.from({ length: 12 }, () => caller.callTool('deaf__sink', { big }));
      // Closing the caller below fails the calls still waiting: handled from now on, not only at the end.
      const settled = Promise.allSettled(calls);
      await calls.at(-1);
      expect(gateway.upstreams()[0]).toMatchObject({ name: 'deaf', status: 'down' });
      await caller.close();
      await gateway.close();
      expect(deafChildren()).toEqual([]);
      await settled;
    },
  );
});
