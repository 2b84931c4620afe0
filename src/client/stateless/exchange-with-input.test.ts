import { afterEach, describe, expect, it, vi } from 'vitest';
import { Peer } from '../../protocol/engine/peer.js';
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { createLinkedPair } from '../../transports/in-memory.js';
import { exchangeWithInput } from './exchange-with-input.js';

const noInput = () => Promise.reject(new Error('no input expected'));

afterEach(() => vi.restoreAllMocks());

describe('exchangeWithInput', () => {
  it("names the caller's timeout when a round times out, not the budget left for that round", async () => {
    // A peer that never answers: the round's request times out in the engine.
    const [clientEnd, serverEnd] = createLinkedPair();
    const silent = new Peer();
    silent.setRequestHandler('tools/call', () => new Promise<JsonObject>(() => {}));
    await silent.connect(serverEnd);
    const peer = new Peer();
    await peer.connect(clientEnd);
    // The clock of the exchange reads the time once more before its first round is sent; on a busy
    // machine a few ms pass in between, and the round gets only what is left of the 100 ms.
    const realNow = Date.now.bind(Date);
    let first = true;
    vi.spyOn(Date, 'now').mockImplementation(() => {
      if (!first) return realNow();
      first = false;
      return realNow() - 5;
    });
    const error = await exchangeWithInput(
      'tools/call',
      { name: 'hang' },
      (params, options) => peer.request('tools/call', params, options),
      noInput,
      { defaultTimeout: 60_000, timeout: 100 },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: LocalErrorCode.RequestTimeout,
      details: { method: 'tools/call', timeout: 100 },
    });
    expect((error as { details: { elapsed: number } }).details.elapsed).toBeGreaterThanOrEqual(100);
    await peer.close();
    await silent.close();
  });
});
