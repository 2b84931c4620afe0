// A peer's JSON-RPC error is bounded where the client surfaces it (the ProtocolError a request rejects
// with) and where the gateway relays it: its message cut to 64 Ki characters with a marker, its data
// dropped past 1 MiB of JSON (the message says so). An upstream's 2 Mi-character message and 1.5 Mi
// characters of data reached the gateway's caller whole.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { rawPeer } from './_raw-peer.js';
import { startedGateway } from './_served-gateway.js';

const HUGE_ERROR = fileURLToPath(new URL('./fixtures/huge-error-server.mjs', import.meta.url));
/** What is kept of the fixture's message: 64 Ki − 1 characters (the emoji astride the cut is left out). */
const KEPT = 'E'.repeat(64 * 1024 - 1);
const DROPPED = 2 * 1024 * 1024 + 2;

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

async function failure(call: Promise<unknown>): Promise<ProtocolError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

describe('a peer’s error of a 2 Mi-character message and 1.5 MiB of data', () => {
  it('reaches a client cut, with its data dropped', async () => {
    const client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [HUGE_ERROR] }));
    cleanup.push(() => client.close());
    const error = await failure(client.callTool('fail', {}));
    expect(error.code).toBe(-32000);
    expect(error.data).toBeUndefined();
    expect(error.message).toBe(
      `${KEPT}…[truncated ${DROPPED} characters] [data of ${1.5 * 1024 * 1024 + 11} characters of JSON dropped]`,
    );
  });

  it('is relayed by the gateway cut, with its data dropped', async () => {
    const gateway = await startedGateway(
      {
        upstreams: { up: { command: process.execPath, args: [HUGE_ERROR], stderr: 'ignore' } },
        policy: { default: 'allow' },
      },
      cleanup,
    );
    // A raw caller: what the gateway sends, not what a toolwire client keeps of it.
    const peer = await rawPeer(gateway.server, '2025-11-25');
    cleanup.push(() => peer.close());
    const answer = await peer.request('tools/call', { name: 'up__fail', arguments: {} });
    const error = answer.error as { code: number; message: string; data?: unknown };
    expect(error.data).toBeUndefined();
    expect(error.message.length).toBeLessThan(64 * 1024 + 200);
    expect(error.message).toContain(`${KEPT}…[truncated ${DROPPED} characters]`);
  });
});
