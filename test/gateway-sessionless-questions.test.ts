// `toolwire gateway --stateless` (the gateway's MCP endpoint served without sessions): a handshake-era host
// is one the gateway cannot ask anything, whatever it declared on its `initialize` (no session kept it). An
// upstream's elicitation during its call is refused with -32602 saying so — it said the host "did not
// declare elicitation", though the host had. The host: raw handshake-era POSTs (2025-11-25) that
// initialize declaring elicitation and call a tool of test/fixtures/question-fates-server.mjs, which
// answers its call with what its question got.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { answer } from './_http-stateless.js';
import { servedGateway } from './_served-gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A handshake-era POST (no session) with the headers a 2025-11-25 client sends. */
const post = (url: string, message: object) =>
  fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  }).then(answer);

describe('a gateway served without sessions (--stateless)', () => {
  it('refuses an upstream’s elicitation to a handshake-era host that declared it, saying it cannot ask without a session', async () => {
    // As `toolwire gateway --http --stateless` serves it.
    const { served } = await servedGateway({ upstreams: UPSTREAMS, policy: { default: 'allow' } }, cleanup, {
      mcp: { stateless: true },
    });
    const url = served.url!;
    const init = await post(url, {
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    expect(init.result).toMatchObject({ protocolVersion: '2025-11-25' });
    const call = await post(url, {
      id: 2,
      method: 'tools/call',
      params: { name: 'fx__ask', arguments: { tag: 'h' } },
    });
    const { content } = call.result as { content: { text: string }[] };
    expect(JSON.parse(content[0]!.text)).toEqual([
      'error -32602: The gateway could not relay elicitation/create: it serves the client of the call without sessions (toolwire gateway --stateless), so it cannot ask a handshake-era client anything (what the client declared went with its initialize, which no session kept); nobody was asked',
    ]);
  });
});
