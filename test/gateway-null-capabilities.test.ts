// A caller that declares `"elicitation": null` declares no elicitation, as the gateway's server reads it (it
// asks such a client nothing): the gateway relays it no question either. An upstream's elicitation during its
// call is refused by the gateway's own client, -32602 saying why, as for a caller that declared nothing —
// not taken as declared, which made a stateless-era call hold its upstream call for a round the caller was
// never to get, and ended it with the server's refusal. Callers: raw JSON-RPC over Streamable HTTP
// (2026-07-28) and over stdio (`toolwire gateway --stdio`, 2025-11-25). The upstream
// (test/fixtures/question-fates-server.mjs) answers its call with what its question got.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/index.js';
import { META, answer, stateless } from './_http-stateless.js';
import { BIN, TOKEN, writeConfig } from './_gateway.js';
import { RawWire } from './_wire.js';
import { servedGateway } from './_served-gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };
const REFUSED = [
  'error -32602: The gateway could not relay elicitation/create: the client of the call did not declare elicitation, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked',
];

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const textOf = (result: JsonObject) => (result.content as { text: string }[])[0]!.text;

describe('a caller declaring "elicitation": null', () => {
  it('over Streamable HTTP (2026-07-28) is asked nothing: the upstream is told no caller takes its question', async () => {
    const { served } = await servedGateway({ upstreams: UPSTREAMS, policy: { default: 'allow' } }, cleanup);
    const meta = META({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: null } });
    const message = await stateless(served.url!, {
      method: 'tools/call',
      params: { name: 'fx__ask', arguments: { tag: 'h' }, _meta: meta },
    }).then(answer);
    const result = message.result as JsonObject;
    expect(result.resultType).toBe('complete');
    expect(JSON.parse(textOf(result))).toEqual(REFUSED);
  });

  it('over stdio (2025-11-25) is asked nothing: the upstream is told no caller takes its question', async () => {
    const config = writeConfig({ upstreams: UPSTREAMS, policy: { default: 'allow' } });
    const wire = new RawWire(
      { command: process.execPath, args: [BIN, 'gateway', '--stdio', '--config', config] },
      { env: { TOOLWIRE_TOKEN: TOKEN } },
    );
    cleanup.push(() => wire.close());
    wire.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: null },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await wire.answer(1);
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const asked: { method?: string }[] = [];
    wire.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'fx__ask', arguments: { tag: 's' } },
    });
    const { result } = await wire.answer<{ result: JsonObject }>(2, (message) => asked.push(message));
    expect(JSON.parse(textOf(result))).toEqual(REFUSED);
    // Nothing was asked of the caller.
    expect(asked.filter((message) => message.method === 'elicitation/create')).toEqual([]);
  });
});
