import { describe, expect, it } from 'vitest';
import { watchSignal } from './http-exchange.js';
import { MemoryEventStore } from '../../stores/event-store.js';
import { HttpSessionTransport } from './http-session-transport.js';

/** A session transport whose "server" answers every request at once. */
function echoing(responseMode: 'json' | 'sse'): HttpSessionTransport {
  const transport = new HttpSessionTransport({
    sessionId: 's',
    eventStore: new MemoryEventStore(),
    responseMode,
    retryMs: 1000,
    keepAliveMs: 0,
    primeStreams: () => true,
    headers: {},
  });
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

  it('remembers the SSE streams an event store can replay', async () => {
    const transport = echoing('sse');
    await postCalls(transport, 5);
    expect(transport.resumableStreams).toBe(5);
    await transport.close();
  });
});
