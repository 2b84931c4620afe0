// The HTTP client transports read no more of a server's stream while the POSTs of their answers pile up: a
// server in a child process floods pings down an SSE stream and accepts the POSTs of the answers 32 at a
// time. The client stops reading while 64 wait (the server's writes wait in the connection) and goes on
// once they are accepted, so every ping is answered; before, it read every ping at once, queued 1,024
// answers and refused the rest (the server's pings were never answered). The same holds for the stream of
// a stateless-era request (where every ping is answered -32601: the era has no server requests), which
// was read regardless. And a server that accepts none until it holds 64 gets them: the client sends more
// as soon as one of its 64 is accepted; before, it sent none until half were, and the server, holding 33
// to 63 of them, waited with it until they were dropped 30 s later.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { Transport } from '../src/protocol/transport.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { until } from './_http-client.js';

const FIXTURE = new URL('./fixtures/ping-flood-server.mjs', import.meta.url);
const PINGS = 5000;

interface Report {
  ok: number;
  errors: number;
  messages: string[];
  codes: Record<string, number>;
  written: number;
}

const children: ChildProcess[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const child of children.splice(0)) child.kill();
});

/** Starts the flooding server, which accepts the POSTs of the answers `batch` at a time; resolves with its origin. */
async function floodingServer(batch = 32): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE.pathname, String(PINGS), String(batch)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}`;
}

async function report(origin: string): Promise<Report> {
  return (await (await fetch(`${origin}/report`)).json()) as Report;
}

interface FloodOptions {
  protocolVersion?: '2025-11-25' | '2026-07-28';
  request?: (client: Client) => Promise<unknown>;
}

/**
 * Connects a client through `transport` (speaking `protocolVersion`), calls `request` on it, and resolves
 * once the server got an answer to every ping (or the client reported an error).
 */
async function answerFlood(
  origin: string,
  transport: Transport,
  { protocolVersion = '2025-11-25', request }: FloodOptions = {},
): Promise<{ last: Report; errors: Error[]; requested: Promise<unknown> }> {
  const errors: Error[] = [];
  const client = new Client(
    { name: 'flooded', version: '1.0.0' },
    { protocolVersion, onError: (error) => errors.push(error) },
  );
  clients.push(client);
  await client.connect(transport);
  const requested = request?.(client) ?? Promise.resolve();
  requested.catch(() => undefined); // awaited by the caller
  let last: Report = { ok: 0, errors: 0, messages: [], codes: {}, written: 0 };
  let polling = false;
  await until(() => {
    if (!polling) {
      polling = true;
      // A poll still under way when the test ends meets a server already killed (ECONNRESET): not an error.
      report(origin).then(
        (got) => {
          last = got;
          polling = false;
        },
        () => {
          polling = false;
        },
      );
    }
    return last.ok + last.errors === PINGS || errors.length > 0;
  }, 15_000);
  return { last, errors, requested };
}

describe('HTTP client transports, a server flooding pings and accepting answers 32 at a time', () => {
  it('Streamable HTTP: reads no more while 64 answers wait, and answers every ping', async () => {
    const origin = await floodingServer();
    const { last, errors } = await answerFlood(
      origin,
      new StreamableHttpClientTransport({ url: `${origin}/mcp` }),
    );
    expect(errors.map(String)).toEqual([]);
    expect(last).toMatchObject({ ok: PINGS, errors: 0, written: PINGS });
  });

  it('legacy HTTP+SSE: reads no more while 64 answers wait, and answers every ping', async () => {
    const origin = await floodingServer();
    const { last, errors } = await answerFlood(origin, new SseClientTransport({ url: `${origin}/sse` }));
    expect(errors.map(String)).toEqual([]);
    expect(last).toMatchObject({ ok: PINGS, errors: 0, written: PINGS });
  });

  it('stateless era: reads no more of a request’s stream while 64 answers wait, and answers every ping', async () => {
    const origin = await floodingServer();
    const { last, errors, requested } = await answerFlood(
      origin,
      new StreamableHttpClientTransport({ url: `${origin}/mcp` }),
      { protocolVersion: '2026-07-28', request: (client) => client.listTools() },
    );
    expect(errors.map(String)).toEqual([]);
    // -32601 each, the era having no server requests: none refused for want of room.
    expect(last).toMatchObject({ ok: 0, errors: PINGS, codes: { '-32601': PINGS }, written: PINGS });
    await expect(requested).resolves.toEqual([]);
  });
});

describe('HTTP client transports, a server that accepts the POSTs of answers only once it holds 64', () => {
  it('Streamable HTTP: sends more as soon as one is accepted, and answers every ping', async () => {
    const origin = await floodingServer(64);
    const { last, errors } = await answerFlood(
      origin,
      new StreamableHttpClientTransport({ url: `${origin}/mcp` }),
    );
    expect(errors.map(String)).toEqual([]);
    expect(last).toMatchObject({ ok: PINGS, errors: 0, written: PINGS });
  });

  it('legacy HTTP+SSE: sends more as soon as one is accepted, and answers every ping', async () => {
    const origin = await floodingServer(64);
    const { last, errors } = await answerFlood(origin, new SseClientTransport({ url: `${origin}/sse` }));
    expect(errors.map(String)).toEqual([]);
    expect(last).toMatchObject({ ok: PINGS, errors: 0, written: PINGS });
  });
});
