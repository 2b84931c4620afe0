// The HTTP client transports read no more of a server's stream while the POSTs of their answers pile up: a
// server in a child process floods pings down its SSE stream and accepts the POSTs of the answers 64 at a
// time. The client stops reading while 64 wait (the server's writes wait in the connection) and goes on
// once they are accepted, so every ping is answered; before, it read every ping at once, queued 1,024
// answers and refused the rest (the server's pings were never answered).
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
  written: number;
}

const children: ChildProcess[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const child of children.splice(0)) child.kill();
});

/** Starts the flooding server; resolves with its origin. */
async function floodingServer(): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE.pathname, String(PINGS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}`;
}

async function report(origin: string): Promise<Report> {
  return (await (await fetch(`${origin}/report`)).json()) as Report;
}

/** Connects a client through `transport`; resolves once the server got an answer to every ping (or an error). */
async function answerFlood(origin: string, transport: Transport): Promise<{ last: Report; errors: Error[] }> {
  const errors: Error[] = [];
  const client = new Client(
    { name: 'flooded', version: '1.0.0' },
    { protocolVersion: '2025-11-25', onError: (error) => errors.push(error) },
  );
  clients.push(client);
  await client.connect(transport);
  let last: Report = { ok: 0, errors: 0, messages: [], written: 0 };
  let polling = false;
  await until(() => {
    if (!polling) {
      polling = true;
      void report(origin).then((got) => {
        last = got;
        polling = false;
      });
    }
    return last.ok + last.errors === PINGS || errors.length > 0;
  }, 15_000);
  return { last, errors };
}

describe('HTTP client transports, a server flooding pings and accepting answers 64 at a time', () => {
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
});
