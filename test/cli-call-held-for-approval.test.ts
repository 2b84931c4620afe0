// `toolwire call` through a gateway that asks: the call waits for a person's decision (up to 2 minutes by
// default) while the CLI's --timeout is 60 s. The gateway sends progress while it waits, to a caller that
// asked for progress; the CLI asks for it, and each notification renews its --timeout, up to --max-time.
// It used to give up after --timeout whatever the progress (exit 4), and the approval was withdrawn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { Server, text } from '../src/server/index.js';
import { runCli } from './_cli.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

let setup: ServedGateway;

beforeAll(async () => {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool(
    'write',
    { inputSchema: { type: 'object', properties: { path: { type: 'string' } } } as const },
    (args) => text(`wrote ${String((args as { path?: unknown }).path)}`),
  );
  setup = await serveGatewayFor(server, {
    config: { policy: { default: 'ask' }, approvals: { progressIntervalMs: 200 } },
    model: false,
  });
});

afterAll(async () => {
  await setup?.close();
});

/** The one approval the gateway holds, once it holds it. */
async function heldApproval(): Promise<string> {
  await expect
    .poll(async () => (await setup.gateway.approvals.pending()).length, { timeout: 10_000 })
    .toBe(1);
  return (await setup.gateway.approvals.pending())[0]!.id;
}

describe('toolwire call, held by a gateway for approval', () => {
  it('outlives --timeout while the gateway reports progress, and prints the result once approved', async () => {
    const call = runCli([
      'call',
      '--tool',
      'files__write',
      'path=a',
      '--yes',
      '--timeout',
      '1000',
      setup.served.url!,
    ]);
    const id = await heldApproval();
    // Approved twice --timeout after the gateway began to hold it: only its progress kept the call alive.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await setup.gateway.approvals.decide(id, { approve: true, decidedBy: 'test' });
    const result = await call;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(ExitCode.Success);
    expect(result.stdout).toBe('wrote a\n');
  });

  it('gives up at --max-time however much progress comes (exit 4), saying so', async () => {
    const args = ['call', '--tool', 'files__write', 'path=b', '--yes', '--timeout', '1000'];
    const result = await runCli([...args, '--max-time', '2500', setup.served.url!]);
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toContain('Request tools/call exceeded its maximum total timeout of 2500 ms');
    // The gateway withdraws the approval of a call its caller gave up on.
    await expect
      .poll(async () => (await setup.gateway.approvals.pending()).length, { timeout: 10_000 })
      .toBe(0);
  });
});
