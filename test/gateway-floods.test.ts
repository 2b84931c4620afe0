// A hostile upstream behind `toolwire gateway --stdio` (the attack suite's hostile server: raw JSON lines)
// while the host does not read: log floods relayed to a caller that stopped reading stdout are dropped past
// the transport's queue limit, log lines for a stderr nobody reads are dropped past 1 MiB (and counted), and
// an answer over the message limit fails its call at once. Each case would otherwise grow the gateway's
// memory without bound, or hold the call until its timeout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from './_gateway.js';

const HOSTILE = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

interface Message {
  id?: number;
  method?: string;
  result?: { content?: Array<{ text?: string }>; isError?: boolean };
  error?: { code: number; message: string };
}

const running: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** The gateway in front of the hostile server, on raw pipes: its stdout read line by line on demand. */
async function hostileGateway() {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'gateway',
      '--stdio',
      '--default',
      'allow',
      '--api-port',
      '0',
      '--upstream',
      'h',
      '--',
      process.execPath,
      HOSTILE,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  running.push(child);
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const next = async (): Promise<Message> =>
    JSON.parse(lines.shift() ?? (await new Promise<string>((resolve) => waiters.push(resolve)))) as Message;
  let id = 0;
  const send = (method: string, params: object): number => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
    return id;
  };
  /** Reads until the answer to `id`; counts the log messages on the way. */
  const answer = async (wanted: number): Promise<{ message: Message; logs: number }> => {
    let logs = 0;
    for (;;) {
      const message = await next();
      if (message.method === 'notifications/message') logs += 1;
      else if (message.id === wanted) return { message, logs };
    }
  };
  await answer(
    send('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'host', version: '1' },
    }),
  );
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await answer(send('tools/list', {}));
  return { child, send, answer };
}

describe('a hostile upstream behind the gateway, a host that does not read', () => {
  it('relays a log flood to a caller that stopped reading only up to the queue limit', async () => {
    const gateway = await hostileGateway();
    gateway.child.stdout.pause();
    // 100,000 log messages for the one call in flight: each relayed to its caller (≈10 MB).
    const call = gateway.send('tools/call', { name: 'h__flood', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    gateway.child.stdout.resume();
    const { message, logs } = await gateway.answer(call);
    expect(message.result?.content?.[0]?.text).toBe('after the flood');
    expect(logs).toBeGreaterThan(1000);
    expect(logs).toBeLessThan(100_000);
  });

  it('drops its own log lines while stderr is not read, and says how many', async () => {
    const gateway = await hostileGateway();
    gateway.child.stderr.pause();
    // Four calls in flight: no single caller to relay the 400,000 messages to; the gateway logs them.
    const calls = Array.from({ length: 4 }, () =>
      gateway.send('tools/call', { name: 'h__flood', arguments: {} }),
    );
    for (const call of calls) {
      const { message } = await gateway.answer(call);
      expect(message.result?.content?.[0]?.text).toBe('after the flood');
    }
    let stderr = '';
    gateway.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    gateway.child.stderr.resume();
    // Told once stderr drains: waited for (10 s at most), then checked.
    for (let i = 0; i < 200 && !/log lines dropped/.test(stderr); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // 400,000 lines of ≈40 characters: ≈16 MB had they all been kept.
    expect(stderr.length).toBeLessThan(4 * 1024 * 1024);
    expect(stderr).toMatch(/toolwire gateway: \d+ log lines dropped: stderr was not read/);
  });

  it('fails a call whose upstream answer is over the message limit at once, and goes on', async () => {
    const gateway = await hostileGateway();
    const started = performance.now();
    const { message } = await gateway.answer(gateway.send('tools/call', { name: 'h__huge', arguments: {} }));
    // The upstream's 64 MiB line is discarded; the call fails with its reason, not at the upstream's timeout.
    expect(message.result?.isError).toBe(true);
    expect(message.result?.content?.[0]?.text).toMatch(/exceeds the maximum message size/);
    expect(performance.now() - started).toBeLessThan(15_000);
    const { message: echo } = await gateway.answer(
      gateway.send('tools/call', { name: 'h__echo', arguments: {} }),
    );
    expect(echo.result?.content?.[0]?.text).toBe('echo');
  });
});
