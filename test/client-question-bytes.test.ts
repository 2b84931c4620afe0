// What a client holds of the server's questions while its handlers answer them or they wait their turn
// (maxQuestionBytes): a server asking many large questions at once (test/fixtures/asking-server.mjs) gets
// -32603 for those past the budget, and no handler runs for them.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway } from '../src/gateway/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import type { CreateMessageResult } from '../src/protocol/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const ASKING = fileURLToPath(new URL('./fixtures/asking-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('Client maxQuestionBytes, a server asking many large questions at once', () => {
  it('answers the questions past the budget with -32603 before any handler runs', async () => {
    const held: Array<(result: CreateMessageResult) => void> = [];
    let refused!: (messages: string[]) => void;
    const refusals = new Promise<string[]>((resolve) => (refused = resolve));
    const client = new Client(
      { name: 'questions', version: '1' },
      {
        protocolVersion: '2025-11-25',
        maxQuestionBytes: 350 * 1024,
        // Held until the server said what it was refused: those held are what the client holds.
        sampling: () => new Promise((resolve) => held.push(resolve)),
        onLog: ({ data }) => refused((data as { refused: string[] }).refused),
      },
    );
    cleanup.push(() => client.close());
    // Six questions of 100 KiB: three fit in 350 KiB.
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [ASKING, '6', '100', '3'],
        stderr: 'ignore',
        shutdownTimeoutMs: 200,
      }),
    );
    const call = client.callTool('ask', {});
    call.catch(() => undefined); // awaited below, once the held questions are answered
    const messages = await refusals;
    expect(held).toHaveLength(3);
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(message).toMatch(
        /^Internal error: the client is answering questions of \d+ bytes already and holds at most 358400 \(this one: \d+ bytes\); ask again once they are answered$/,
      );
    }
    for (const answer of held)
      answer({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } });
    const result = await call;
    const outcomes = JSON.parse((result.content[0] as { text: string }).text) as unknown[];
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === -32603)).toHaveLength(3);
  });

  it('counts the questions waiting their turn: those past the budget as they arrive are -32603', async () => {
    // Twelve questions of 1 KiB in one line burst: the first ones start, the rest wait in the engine's line
    // (each of them held there), and the handlers answer each at the next turn. Three fit in the budget: the
    // nine that arrived past it are refused, though by their turn the first three were answered.
    let asked = 0;
    const client = new Client(
      { name: 'questions', version: '1' },
      {
        protocolVersion: '2025-11-25',
        maxQuestionBytes: 3600,
        sampling: () => {
          asked += 1;
          return new Promise<CreateMessageResult>((resolve) =>
            setImmediate(() =>
              resolve({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } }),
            ),
          );
        },
      },
    );
    cleanup.push(() => client.close());
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [ASKING, '12', '1', '9'],
        stderr: 'ignore',
        shutdownTimeoutMs: 200,
      }),
    );
    const result = await client.callTool('ask', {});
    const outcomes = JSON.parse((result.content[0] as { text: string }).text) as unknown[];
    expect(outcomes).toEqual(['ok', 'ok', 'ok', ...Array<number>(9).fill(-32603)]);
    expect(asked).toBe(3);
  });
});

describe('a gateway relaying many large questions of an upstream to a caller that does not answer them', () => {
  it('holds at most 64 MiB of them (its upstream clients take the default) and refuses the rest with -32603', async () => {
    const gateway = createGateway(
      {
        upstreams: { up: { command: process.execPath, args: [ASKING, '20', '4000', '4'], stderr: 'ignore' } },
        policy: { default: 'allow' },
      },
      { onLog: () => undefined },
    );
    cleanup.push(() => gateway.close());
    await gateway.start();
    const held: Array<(result: CreateMessageResult) => void> = [];
    let refused!: (messages: string[]) => void;
    const refusals = new Promise<string[]>((resolve) => (refused = resolve));
    // A handshake-era caller: its questions are requests the gateway waits on (a stateless-era caller's
    // question ends the attempt instead).
    const caller = new Client(
      { name: 'caller', version: '1' },
      {
        protocolVersion: '2025-11-25',
        sampling: () => new Promise((resolve) => held.push(resolve)),
        onLog: ({ data }) => refused((data as { refused: string[] }).refused),
      },
    );
    cleanup.push(() => caller.close());
    const [clientEnd, serverEnd] = createLinkedPair();
    await gateway.server.connect(serverEnd);
    await caller.connect(clientEnd);
    const call = caller.callTool('up__ask', {});
    call.catch(() => undefined); // awaited below, once the held questions are answered
    // Twenty questions of ≈4,000 KiB: sixteen fit in 64 MiB; before, all twenty were held (up to 1,000).
    const messages = await refusals;
    expect(messages).toHaveLength(4);
    expect(messages[0]).toMatch(/holds at most 67108864 \(this one: 40\d{5} bytes\)/);
    expect(held).toHaveLength(16);
    for (const answer of held)
      answer({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } });
    const outcomes = JSON.parse(((await call).content[0] as { text: string }).text) as unknown[];
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(16);
  });
});
