// The decision API's event streams against readers that stop reading: each stalled stream counts against
// `maxEventStreams` for as long as its connection is open, and one that falls too far behind (more than
// 1,000 events or 4 MiB queued) has its connection ended by the gateway — cut, not finished — so that
// its queue is dropped and its slot freed. The events here are `tools.changed`, ≈63 KB each (every exposed
// tool's name), made by changing a tool's policy through the API.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayHttpHandle } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { servedApi } from './_gateway.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

const TOOLS = 1000;
/** 60 characters exposed (`up__` and the name): the longest name the gateway exposes unchanged is 64. */
const toolName = (i: number) => `tool_${String(i).padStart(4, '0')}_${'x'.repeat(46)}`;

let setup: ServedGateway | undefined;
let served: GatewayHttpHandle;

beforeAll(async () => {
  const server = new Server({ name: 'many', version: '1.0.0' });
  for (let i = 0; i < TOOLS; i++) server.tool(toolName(i), {}, () => text('ok'));
  setup = await serveGatewayFor(server, {
    name: 'up',
    serve: { port: 0, mcp: false, console: false, api: { maxEventStreams: 2 } },
    model: false,
  });
  ({ served } = setup);
});

afterAll(() => setup?.close());

const api = (path: string, body?: unknown) => servedApi(served, path, body);

interface Stalled {
  socket: Socket;
  /** Everything read (once resumed). */
  received(): string;
  /** Resolves once the connection has closed. */
  closed: Promise<void>;
}

/** Opens the event stream on a raw socket, reads its first bytes (200), then stops reading. */
async function stalledStream(): Promise<Stalled> {
  const { port } = served;
  const socket = connect(port, '127.0.0.1');
  let text = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('event: snapshot')) resolve();
    });
    socket.write(
      `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${served.api.token}\r\n\r\n`,
    );
  });
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  socket.pause();
  return { socket, received: () => text, closed };
}

describe('event streams whose readers stop reading', () => {
  it('counts stalled streams until their connections close, and ends those that fall too far behind', async () => {
    const a = await stalledStream();
    const b = await stalledStream();
    try {
      // Both stalled streams hold their slots.
      expect((await api('/events')).status).toBe(503);
      // ≈16 MB of events, far more than the sockets' buffers and the 4 MiB bound hold.
      for (let i = 0; i < 250; i++) {
        const response = await api(`/tools/up__${toolName(0)}/policy`, { action: i % 2 ? null : 'ask' });
        expect(response.status).toBe(200);
      }
      // Read again: each stream was cut by the gateway (no final chunk), well before the last events.
      for (const stalled of [a, b]) {
        stalled.socket.resume();
        await stalled.closed;
        const received = stalled.received();
        expect(received.endsWith('\r\n0\r\n\r\n')).toBe(false);
        expect(received.split('event: tools.changed').length - 1).toBeLessThan(250);
      }
      // Their slots are free again; the cap still holds.
      const open = [await api('/events'), await api('/events')];
      expect(open.map((response) => response.status)).toEqual([200, 200]);
      expect((await api('/events')).status).toBe(503);
      for (const response of open) await response.body?.cancel();
    } finally {
      a.socket.destroy();
      b.socket.destroy();
    }
  });
});
