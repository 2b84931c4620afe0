import { describe, expect, it } from 'vitest';
import { SseReply, watchSignal } from './http-exchange.js';
import { MemoryEventStore, type EventStore } from '../../stores/event-store.js';
import { HttpSessionTransport } from './http-session-transport.js';

/** A session transport whose "server" answers every request at once. */
function echoing(
  responseMode: 'json' | 'sse',
  eventStore: EventStore = new MemoryEventStore(),
): HttpSessionTransport {
  const transport = new HttpSessionTransport(
    { eventStore, responseMode, retryMs: 1000, keepAliveMs: 0, protocolVersion: () => '2025-11-25' },
    's',
  );
  transport.onmessage = (message) => {
    const { id } = message as { id: number };
    void transport.send({ jsonrpc: '2.0', id, result: {} });
  };
  return transport;
}

async function postCalls(transport: HttpSessionTransport, count: number): Promise<void> {
  const signal = new AbortController().signal;
  for (let id = 1; id <= count; id++) {
    const response = await transport.post(
      [{ jsonrpc: '2.0', id, method: 'ping' }],
      [id],
      false,
      watchSignal(signal),
    );
    await response.text();
  }
}

describe('HttpSessionTransport', () => {
  it('keeps no stream id per POST in JSON mode, where nothing can be resumed', async () => {
    const transport = echoing('json');
    await postCalls(transport, 50);
    expect(transport.resumableStreams).toBe(0);
    expect(transport.openStreams).toBe(0);
  });

  it('stops watching the signal of a JSON-mode POST once it is answered', async () => {
    const transport = echoing('json');
    const controller = new AbortController();
    let watching = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      watching++;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      watching--;
      remove(...args);
    };
    const response = await transport.post(
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      [1],
      false,
      watchSignal(signal),
    );
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(watching).toBe(0);
  });

  it('keeps the last 32 finished SSE streams resumable and deletes older ones from the store', async () => {
    const store = new MemoryEventStore();
    const transport = echoing('sse', store);
    const primingIds: string[] = [];
    const signal = new AbortController().signal;
    for (let id = 1; id <= 300; id++) {
      const response = await transport.post(
        [{ jsonrpc: '2.0', id, method: 'ping' }],
        [id],
        false,
        watchSignal(signal),
      );
      primingIds.push(/^id: (.+)$/m.exec(await response.text())![1]!);
    }
    expect(transport.resumableStreams).toBe(32);
    expect(transport.openStreams).toBe(0);
    expect(store.streamCount).toBe(32);
    // The latest stream is resumable: resuming after its priming event replays the response.
    const latest = await transport.resume(primingIds.at(-1)!);
    expect(latest.status).toBe(200);
    expect(await latest.text()).toContain('"id":300,"result":{}');
    expect((await transport.resume(primingIds.at(-32)!)).status).toBe(200);
    // Older ones left the store; another session's ids are no ids here (400: the session goes on).
    expect((await transport.resume(primingIds.at(-33)!)).status).toBe(400);
    expect((await transport.resume(primingIds[0]!)).status).toBe(400);
    const other = echoing('sse', store);
    expect((await other.resume(primingIds.at(-1)!)).status).toBe(400);
    await transport.close();
    expect(store.streamCount).toBe(0);
  });

  it('has the priming event and an answer given at once in the reply it returns, the stream ended', async () => {
    const transport = echoing('sse');
    const replied = transport.post(
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      [1],
      false,
      watchSignal(new AbortController().signal),
    );
    // Dispatched and answered before `post` returned: no promise hop for the priming event's record.
    expect(transport.pendingRequests).toBe(0);
    const reply = await replied;
    // The node adapter then writes the whole answer with its headers in one write.
    expect(reply).toBeInstanceOf(SseReply);
    const { sink } = reply as SseReply;
    expect(sink.closed).toBe(true);
    expect(sink.queuedMessages).toBe(2);
    expect(await reply.text()).toMatch(
      /^id: (.+)\.1\nretry: 1000\ndata: \n\nid: \1\.2\ndata: \{"jsonrpc":"2\.0","id":1,"result":\{\}\}\n\n$/,
    );
  });

  it('writes the events in order once an event store that answers later has recorded them', async () => {
    const memory = new MemoryEventStore();
    const later: EventStore = {
      append: (streamId, message) => Promise.resolve().then(() => memory.append(streamId, message)),
      replayAfter: (eventId) => memory.replayAfter(eventId),
      deleteStream: (streamId) => memory.deleteStream(streamId),
    };
    const transport = echoing('sse', later);
    const reply = await transport.post(
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      [1],
      false,
      watchSignal(new AbortController().signal),
    );
    expect(await reply.text()).toMatch(
      /^id: (.+)\.1\nretry: 1000\ndata: \n\nid: \1\.2\ndata: \{"jsonrpc":"2\.0","id":1,"result":\{\}\}\n\n$/,
    );
  });
});
