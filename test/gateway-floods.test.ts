// A hostile upstream behind `toolwire gateway --stdio` (the attack suite's hostile server: raw JSON lines)
// while the host does not read: log floods relayed to a caller that stopped reading stdout are dropped past
// the transport's queue limit, log lines for a stderr nobody reads are dropped past 1 MiB (and counted), and
// an answer over the message limit fails its call at once. Each case would otherwise grow the gateway's
// memory without bound, or hold the call until its timeout.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_QUEUED_MESSAGES } from '../src/transports/queued-output.js';
import { BIN } from './_gateway.js';
import { RawWire } from './_wire.js';

const HOSTILE = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

interface Answer {
  result?: { content?: Array<{ text?: string }>; isError?: boolean };
}

/** The gateway in front of the hostile server (`h`), on raw pipes, initialized and listed. */
async function hostileGateway(): Promise<RawWire> {
  const args = [BIN, 'gateway', '--stdio', '--default', 'allow', '--api-port', '0', '--upstream', 'h'];
  const wire = new RawWire({ command: process.execPath, args: [...args, '--', process.execPath, HOSTILE] });
  await wire.initialize();
  wire.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
  await wire.answer('list');
  return wire;
}

/** The upstream the gateway `wire` runs (its child running the hostile server). */
function upstreamOf(wire: RawWire): number {
  const gateway = wire.child.pid!;
  const children = readFileSync(`/proc/${gateway}/task/${gateway}/children`, 'utf8').trim().split(/\s+/);
  const upstream = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(HOSTILE));
  if (upstream === undefined)
    throw new Error(`no upstream among the gateway's children ${children.join(' ')}`);
  return Number(upstream);
}

/** Bytes process `pid` has written so far (`wchar` of /proc/PID/io). */
const written = (pid: number) => Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);

/** The bytes of the first `count` log messages of the hostile server's flood, as it writes them. */
const floodBytes = (count: number) =>
  Array.from({ length: count }, (_, k) =>
    Buffer.byteLength(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `noise ${k}` } })}\n`,
    ),
  ).reduce((sum, bytes) => sum + bytes, 0);

/** Calls `tool`; its answer, and the log messages that came before it. */
async function call(wire: RawWire, id: number, tool: string): Promise<{ answer: Answer; logs: number }> {
  wire.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {} } });
  return collect(wire, id);
}

async function collect(wire: RawWire, id: number): Promise<{ answer: Answer; logs: number }> {
  let logs = 0;
  const answer = await wire.answer<Answer>(id, (message) => {
    if (message.method === 'notifications/message') logs += 1;
  });
  return { answer, logs };
}

describe('a hostile upstream behind the gateway, a host that does not read', () => {
  it('relays a log flood to a caller that stopped reading only up to the queue limit', async () => {
    await using wire = await hostileGateway();
    const upstream = upstreamOf(wire);
    const before = written(upstream);
    wire.pauseReading();
    // 100,000 log messages for the one call in flight: each relayed to its caller (≈10 MB).
    wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'h__flood', arguments: {} } });
    // Until the gateway has read far more of them than its queue holds (and a pipe's 64 KiB): the upstream
    // writes them only as the gateway reads. A 3 s sleep here was too short on a busy machine: the gateway had
    // read too few to drop any, and all 100,000 came through.
    const overflowing = floodBytes(2.5 * DEFAULT_MAX_QUEUED_MESSAGES) + 2 * 64 * 1024;
    await expect.poll(() => written(upstream) - before, { timeout: 15_000 }).toBeGreaterThan(overflowing);
    wire.resumeReading();
    const { answer, logs } = await collect(wire, 1);
    expect(answer.result?.content?.[0]?.text).toBe('after the flood');
    expect(logs).toBeGreaterThan(1000);
    expect(logs).toBeLessThan(100_000);
  });

  it('drops its own log lines while stderr is not read, and says how many', async () => {
    await using wire = await hostileGateway();
    wire.child.stderr.pause();
    const before = wire.stderr.length;
    // Two calls in flight: no single caller to relay the 200,000 messages to; the gateway logs them (≈7 MB of
    // lines, past the 1 MiB it keeps for a stderr nobody reads). Four took 19.7 s of the 20 s on a busy host.
    for (let id = 1; id <= 2; id++) {
      wire.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'h__flood', arguments: {} } });
    }
    for (let id = 1; id <= 2; id++) {
      expect((await collect(wire, id)).answer.result?.content?.[0]?.text).toBe('after the flood');
    }
    wire.child.stderr.resume();
    // Told once stderr drains: waited for (10 s at most), then checked.
    for (let i = 0; i < 200 && !/log lines dropped/.test(wire.stderr); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // 200,000 lines of ≈40 characters: ≈8 MB had they all been kept.
    expect(wire.stderr.length - before).toBeLessThan(4 * 1024 * 1024);
    expect(wire.stderr).toMatch(/toolwire gateway: \d+ log lines dropped: stderr was not read/);
  });

  it("escapes an upstream's log message on its stderr: no control character, forged line or bidi override", async () => {
    await using wire = await hostileGateway();
    // The upstream sends it once both calls are in flight: no single caller to relay it to; the gateway logs it.
    for (const id of [1, 2]) {
      wire.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'h__escapes', arguments: {} } });
    }
    for (const id of [1, 2]) {
      expect((await collect(wire, id)).answer.result?.content?.[0]?.text).toBe('after the escapes');
    }
    for (let i = 0; i < 200 && !wire.stderr.includes('red'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const line = wire.stderr.split('\n').find((text) => text.includes('red'));
    expect(line).toBe(
      'toolwire gateway: [h] info: \\u001b[2J\\u001b[31mred\\u000atoolwire gateway: forged\\u202eevil',
    );
    expect(wire.stderr).not.toMatch(/^toolwire gateway: forged/m);
    for (const raw of ['\u001b', '\u202e']) expect(wire.stderr).not.toContain(raw);
  });

  it('fails a call whose upstream answer is over the message limit at once, and goes on', async () => {
    await using wire = await hostileGateway();
    const started = performance.now();
    const { answer } = await call(wire, 1, 'h__huge');
    // The upstream's 64 MiB line is discarded; the call fails with its reason, not at the upstream's timeout.
    expect(answer.result?.isError).toBe(true);
    expect(answer.result?.content?.[0]?.text).toMatch(/exceeds the maximum message size/);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect((await call(wire, 2, 'h__echo')).answer.result?.content?.[0]?.text).toBe('echo');
  });

  it("fails a call whose upstream answer is too deep to read with an isError result, not the caller's parse error", async () => {
    await using wire = await hostileGateway();
    // Nested 100,000 deep: the gateway's client refuses it unparsed (-32700 to the client's own caller).
    // Passed on as it was, the host was told that its own well-formed call was not JSON.
    const { answer } = await call(wire, 1, 'h__deep_answer');
    expect(answer).toMatchObject({ id: 1, result: { isError: true } });
    expect(answer.result?.content?.[0]?.text).toMatch(
      /^Upstream h failed to run deep_answer: The answer to request \d+ was refused unparsed: JSON nested deeper than 1024 levels$/,
    );
    expect((await call(wire, 2, 'h__echo')).answer.result?.content?.[0]?.text).toBe('echo');
  });
});
