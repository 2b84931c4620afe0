// A peer's JSON-RPC error is bounded where the client surfaces it (the ProtocolError a request rejects
// with) and where the gateway relays it: its message cut to 64 Ki characters with a marker, its data
// dropped past 1 MiB of JSON (the message says so). An upstream's 2 Mi-character message and 1.5 Mi
// characters of data reached the gateway's caller whole. A -32042 (URL elicitation required) whose data is
// over the bound keeps its elicitations, and so its type, when they fit (before, it became a plain
// ProtocolError without them: what the user had to open was lost).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import { UrlElicitationRequiredError } from '../src/protocol/types/url-elicitation.js';
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

describe('a -32042 (URL elicitation required) with 1.5 MiB of data beside its elicitations, or a long URL', () => {
  const connect = {
    mode: 'url',
    elicitationId: 'e1',
    url: 'https://example.com/connect',
    message: 'Connect your account',
  };
  const client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  beforeAll(async () => {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [HUGE_ERROR] }));
    cleanup.push(() => client.close());
  });

  it('reaches a client as a UrlElicitationRequiredError with its elicitations, the rest dropped', async () => {
    const error = await failure(client.callTool('connect', {}));
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as UrlElicitationRequiredError).elicitations).toEqual([connect]);
    expect(error.data).toEqual({ elicitations: [connect] });
    expect(error.message).toMatch(
      /^Connect first \[data of \d{7} characters of JSON dropped, but for elicitations\]$/,
    );
  });

  it('is a plain ProtocolError when an elicitation’s URL is over 8 Ki characters (a client keeps none)', async () => {
    const error = await failure(client.callTool('connect-long', {}));
    expect(error).not.toBeInstanceOf(UrlElicitationRequiredError);
    expect(error).toMatchObject({ code: -32042, message: 'Connect first' });
    expect((error.data as { elicitations: { url: string }[] }).elicitations[0]?.url).toHaveLength(
      'https://example.com/connect?'.length + 9 * 1024,
    );
  });
});
