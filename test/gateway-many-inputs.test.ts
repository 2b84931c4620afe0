// A stateless-era upstream (a toolwire server over HTTP) whose tool asks many questions in one round, behind
// the gateway (`createGateway`, served over HTTP by `serveGateway`), asked of a handshake-era host over
// Streamable HTTP: the gateway answers a round's input requests 16 at a time, each answer under its own key
// whatever order they come back in, and one that fails leaves the others answered (the upstream asks again
// for the missing one). Before, they were relayed one after another (2,000 took 1.6 s) and the first
// failure lost every other answer of the round.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { servedGateway } from './_served-gateway.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** An upstream whose `ask` asks `count` questions together (one round), answering what each got. */
async function upstreamAsking(count: number): Promise<string> {
  const upstream = new Server({ name: 'web', version: '1.0.0' });
  upstream.tool('ask', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        ctx.elicit({
          message: `q${i}`,
          requestedSchema: { type: 'object', properties: { n: { type: 'string' } } },
        }),
      ),
    );
    return text(answers.map((answer) => String(answer.content?.n)).join(','));
  });
  const web = await serveHttp(upstream, { port: 0 });
  cleanup.push(() => web.close());
  return web.url;
}

async function gatewayFor(url: string): Promise<string> {
  const { served } = await servedGateway(
    { upstreams: { web: { url, protocolVersion: '2026-07-28' } }, policy: { default: 'allow' } },
    cleanup,
  );
  return served.url!;
}

/** A handshake-era host over Streamable HTTP whose elicitation handler is `answer`. */
async function host(
  url: string,
  answer: (message: string) => Promise<{ action: 'accept'; content: { n: string } }>,
): Promise<Client> {
  const client = new Client(
    { name: 'host', version: '1.0.0' },
    { protocolVersion: '2025-11-25', elicitation: (params) => answer(params.message) },
  );
  await client.connect(new StreamableHttpClientTransport({ url }));
  cleanup.push(() => client.close());
  return client;
}

describe("a stateless-era upstream's round of many questions", () => {
  it('is relayed 16 at a time, each answer under its own key', async () => {
    const count = 40;
    const gateway = await gatewayFor(await upstreamAsking(count));
    // The answers are held until 16 questions are out at once (or every one left is), then given back in
    // the reverse order of their asking: one at a time, the host never saw a second question.
    let out: { message: string; release: () => void }[] = [];
    let asked = 0;
    let most = 0;
    const client = await host(gateway, (message) => {
      asked++;
      return new Promise((resolve) => {
        out.push({
          message,
          release: () => resolve({ action: 'accept', content: { n: `a${message.slice(1)}` } }),
        });
        most = Math.max(most, out.length);
        if (out.length === 16 || asked === count) {
          const batch = out.reverse();
          out = [];
          for (const question of batch) question.release();
        }
      });
    });
    const result = await client.callTool('web__ask', {}, { timeout: 20_000 });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: Array.from({ length: count }, (_, i) => `a${i}`).join(',') },
    ]);
    expect(most).toBe(16);
  }, 30_000);

  it('keeps the other answers when one fails, and completes once the question asked again is answered', async () => {
    const count = 20;
    const gateway = await gatewayFor(await upstreamAsking(count));
    let failed = false;
    const client = await host(gateway, async (message) => {
      if (message === 'q7' && !failed) {
        failed = true;
        throw new Error('the person closed the form');
      }
      return { action: 'accept', content: { n: `a${message.slice(1)}` } };
    });
    const result = await client.callTool('web__ask', {}, { timeout: 20_000 });
    expect(failed).toBe(true);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: Array.from({ length: count }, (_, i) => `a${i}`).join(',') },
    ]);
  }, 30_000);
});
