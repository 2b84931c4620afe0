// A stateless-era call cut at its maximum total timeout after an input round says the maximum the caller
// set: each round is sent with what is left of it, and that remainder (2999 ms of 3000, say) was what the
// error named (a CLI test read "of 2999 ms" once in a CI run). Over Streamable HTTP, a real server.
import { afterEach, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

it('names the maximum total timeout the caller set when a round after an input round is cut at it', async () => {
  const server = new Server({ name: 'asks-then-works', version: '1.0.0' });
  server.tool('ask_then_work', {}, async (_args, ctx) => {
    await ctx.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: {} } });
    // Progress every 20 ms for 10 s: only the maximum total timeout ends the call.
    for (let step = 1; step <= 500 && !ctx.signal.aborted; step++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await ctx.progress(step, 500);
    }
    return text('done');
  });
  handle = await serveHttp(server, { port: 0 });
  const client = new Client(
    { name: 'caller', version: '1.0.0' },
    {
      protocolVersion: '2026-07-28',
      // Answered 100 ms later: the second round starts with at most 1,400 ms left of 1,500.
      elicitation: () =>
        new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: {} }), 100)),
    },
  );
  await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
  try {
    const error = await client
      .callTool(
        'ask_then_work',
        {},
        { timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 1_500, onProgress: () => undefined },
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      message: 'Request tools/call exceeded its maximum total timeout of 1500 ms',
      details: { maxTotalTimeout: 1_500 },
    });
  } finally {
    await client.close();
  }
}, 30_000);
