import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from '../jsonrpc.js';
import type { OutputBacklog, Transport } from '../transport.js';
import { Peer } from './peer.js';

/** A transport whose output backlog the test fills and empties; it keeps what the peer sends. */
class PacedTransport implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  readonly backlog: OutputBacklog & { full: boolean } = { bytes: 0, maxBytes: 1024, full: false };
  onmessage?: (message: unknown) => void;
  ondrain?: () => void;
  async start(): Promise<void> {}
  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (Array.isArray(message)) this.sent.push(...message);
    else this.sent.push(message);
  }
  async close(): Promise<void> {}
  holdInput(): void {}
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'work', params: { n: id } });

describe('answers of requests the pacer held', () => {
  it('go out in order, before a request read after the line emptied', async () => {
    const transport = new PacedTransport();
    const peer = new Peer();
    const count = 5;
    const all = new Promise<void>((resolve) => {
      peer.setRequestHandler('work', (params) => {
        // The last request in line, started by the pacer's turn: the next request arrives right after that
        // turn (its chunk read on the next tick, as a stream resumed by `holdInput(false)` delivers it),
        // before the answers of the requests that turn started have gone out.
        if (params.n === count) process.nextTick(() => transport.onmessage?.(call(count + 1)));
        if (params.n === count + 1) setImmediate(resolve);
        return { n: params.n };
      });
    });
    await peer.connect(transport);
    // The reader is behind: every request waits in line.
    transport.backlog.full = true;
    for (let id = 1; id <= count; id++) transport.onmessage?.(call(id));
    expect(transport.sent).toEqual([]);
    // The reader caught up: the pacer starts them, a wave per turn.
    transport.backlog.full = false;
    transport.ondrain?.();
    await all;
    expect(transport.sent.map((m) => ('id' in m ? m.id : undefined))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
