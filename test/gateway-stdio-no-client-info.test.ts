// `toolwire gateway --stdio` and a host that initializes with no `clientInfo` (the spec requires one; some
// hosts leave it out) and declares nothing: an upstream's elicitation during its call is refused saying the
// client did not declare elicitation — not that the gateway serves it without sessions (`--stateless`),
// which it took such a host for (its request carried neither a session id nor a client's info nor any
// capability, as a lone handshake-era POST to a stateless endpoint does). A stdio host has its session. The
// upstream: test/fixtures/question-fates-server.mjs, which answers its call with what its question got.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, TOKEN, writeConfig } from './_gateway.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('a stdio host that sends no clientInfo and declares nothing', () => {
  it('has an upstream’s elicitation refused as undeclared, not as a host served without sessions', async () => {
    const config = writeConfig({ upstreams: UPSTREAMS, policy: { default: 'allow' } });
    const wire = new RawWire(
      { command: process.execPath, args: [BIN, 'gateway', '--stdio', '--config', config] },
      { env: { TOOLWIRE_TOKEN: TOKEN } },
    );
    cleanup.push(() => wire.close());
    const init = (await wire.call(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} })) as {
      result?: { protocolVersion?: string };
    };
    expect(init.result?.protocolVersion).toBe('2025-11-25');
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    wire.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'fx__ask', arguments: { tag: 'd' } },
    });
    const { result } = await wire.answer<{ result: { content: { text: string }[] } }>(1);
    expect(JSON.parse(result.content[0]!.text)).toEqual([
      'error -32602: The gateway could not relay elicitation/create: the client of the call did not declare elicitation, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked',
    ]);
  });
});
