// The signal a client handler gets for a server's request in the handshake era aborts when the call the
// request belongs to ends (answered, timed out or aborted), where the client can tell which call that is:
// over Streamable HTTP, the call whose POST response stream brought the request; over stdio, the one call
// in flight with handlers of its own (`ExchangeOptions.handlers`), whose handlers answer the request. A request nothing ties to a call (the client-wide handlers) is aborted only by the
// server's notifications/cancelled or by the connection closing. The server is a raw one over stdio (the
// hostile fixture's `ask`), which never cancels its request.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientHandlers } from '../src/client/index.js';
import type { ElicitResult } from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { inProcessHttp } from './_setup.js';

const ASKER = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const question = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};

/** An elicitation handler that never answers, and its signal once it was asked. */
function hangingHandler() {
  let asked!: (signal: AbortSignal) => void;
  const signal = new Promise<AbortSignal>((resolve) => (asked = resolve));
  const elicitation = (_params: unknown, ctx: { signal: AbortSignal }): Promise<ElicitResult> => {
    asked(ctx.signal);
    return new Promise(() => {});
  };
  return { elicitation, signal };
}

/** Resolves with the reason once `signal` aborts. */
const abortOf = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.aborted
      ? resolve(signal.reason)
      : signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );

async function stdioClient(handlers: ClientHandlers = {}): Promise<{ client: Client; errors: Error[] }> {
  const errors: Error[] = [];
  const client = new Client(
    { name: 'host', version: '1.0.0' },
    { ...handlers, onError: (error) => errors.push(error) },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [ASKER], stderr: 'ignore' }),
  );
  cleanup.push(() => client.close());
  return { client, errors };
}

describe('over stdio, a server request answered by a call’s own handlers', () => {
  it('has its signal aborted when that call times out', async () => {
    const { client, errors } = await stdioClient({ elicitation: () => ({ action: 'decline' }) });
    const own = hangingHandler();
    const call = client.callTool('ask', question, {
      timeout: 300,
      handlers: { elicitation: own.elicitation },
    });
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(await abortOf(await own.signal)).toMatchObject({
      code: 'REQUEST_CANCELLED',
      message: 'The call this request was asked during ended',
    });
    expect(errors).toEqual([]);
  }, 10_000);

  it('has its signal aborted when that call is aborted', async () => {
    const { client } = await stdioClient();
    const own = hangingHandler();
    const controller = new AbortController();
    const call = client.callTool('ask', question, {
      signal: controller.signal,
      handlers: { elicitation: own.elicitation },
    });
    const signal = await own.signal;
    expect(signal.aborted).toBe(false);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
    expect(await abortOf(signal)).toMatchObject({ code: 'REQUEST_CANCELLED' });
  }, 10_000);
});

describe('over stdio, a server request answered by the client-wide handlers', () => {
  it('is not aborted when the call ends (nothing ties it to the call), only when the connection closes', async () => {
    const wide = hangingHandler();
    const { client } = await stdioClient({ elicitation: wide.elicitation });
    await expect(client.callTool('ask', question, { timeout: 300 })).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
    const signal = await wide.signal;
    await client.ping(); // a round trip after the call ended
    expect(signal.aborted).toBe(false);
    await client.close();
    expect(await abortOf(signal)).toMatchObject({ code: 'CONNECTION_CLOSED' });
  }, 10_000);
});

describe('over Streamable HTTP, a server request on a call’s POST stream', () => {
  /**
   * A toolwire server over HTTP whose tool asks an elicitation during the call, on the call's stream, and
   * does not cancel it when the call is cancelled (its own signal, never aborted); a client whose
   * client-wide handler never answers.
   */
  async function httpClient() {
    const server = new Server({ name: 'asks', version: '1.0.0' });
    server.tool('ask', {}, async (_args, ctx) => {
      const never = new AbortController().signal;
      await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        { signal: never },
      );
      return text('answered');
    });
    const { transport, handler } = inProcessHttp(server);
    const wide = hangingHandler();
    const errors: Error[] = [];
    const client = new Client(
      { name: 'host', version: '1.0.0' },
      {
        elicitation: wide.elicitation,
        protocolVersion: '2025-11-25',
        onError: (error) => errors.push(error),
      },
    );
    await client.connect(transport);
    cleanup.push(() => server.close());
    cleanup.push(() => handler.close());
    cleanup.push(() => client.close());
    return { client, signal: wide.signal, errors };
  }

  it('has its signal aborted when that call times out, though the client-wide handler answers it', async () => {
    const { client, signal, errors } = await httpClient();
    await expect(client.callTool('ask', {}, { timeout: 300 })).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
    expect(await abortOf(await signal)).toMatchObject({
      code: 'REQUEST_CANCELLED',
      message: 'The call this request was asked during ended',
    });
    expect(errors).toEqual([]);
  }, 10_000);

  it('has its signal aborted when that call is aborted', async () => {
    const { client, signal } = await httpClient();
    const controller = new AbortController();
    const call = client.callTool('ask', {}, { signal: controller.signal });
    const asked = await signal;
    expect(asked.aborted).toBe(false);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
    expect(await abortOf(asked)).toMatchObject({ code: 'REQUEST_CANCELLED' });
  }, 10_000);
});
