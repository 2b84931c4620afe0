// The answers one connection has produced and not yet written are bounded in bytes, on the wire: requests
// read together (a chunk of pipelined stdio lines, a JSON-RPC batch) start a wave at a time, none while
// the client leaves `maxQueuedBytes` unread, and a batch's answers — held until its last one is ready —
// stop at `maxBatchAnswerBytes`: the requests of the batch past it are not run and get -31429.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Server } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { closeServedAfterEach, open, post, served } from './_http.js';

closeServedAfterEach();

const FIXTURE = fileURLToPath(new URL('./fixtures/answer-backlog-server.mjs', import.meta.url));
const MiB = 1024 * 1024;
/** The transport's default `maxQueuedBytes` and the server's default `maxBatchAnswerBytes`. */
const BUDGET = 8 * MiB;

const blob = (id: number | string, size: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'blob', arguments: { size } },
});

interface Answer {
  id: number | string;
  result?: { content: Array<{ text: string }>; structuredContent?: unknown };
  error?: { code: number; message: string; data?: { limit?: string } };
}

/** The fixture on stdio: lines in, parsed lines out (stdout paused until `read()`). */
function stdioServer() {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const next = async (): Promise<unknown> => {
    const line = lines.shift() ?? (await new Promise<string>((resolve) => waiters.push(resolve)));
    return JSON.parse(line) as unknown;
  };
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const call = async (id: string, name: string) => {
    send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    return (await next()) as Answer;
  };
  return {
    child,
    next,
    send,
    async initialize(version: string) {
      send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      expect(await next()).toMatchObject({ id: 'init', result: { protocolVersion: version } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
    /** What the fixture's `peak` tool says. */
    async peak(): Promise<{ peakQueuedBytes: number; blobs: number }> {
      const answer = await call('peak', 'peak');
      const text = answer.result!.content[0]!.text;
      return JSON.parse(text) as { peakQueuedBytes: number; blobs: number };
    },
    [Symbol.dispose]() {
      child.kill();
    },
  };
}

/** 0 … count-1. */
const ids = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

/**
 * The next `count` answers' ids, sorted, each answer checked whole (`size` characters) and seen once. Their
 * order is not what these tests check (JSON-RPC does not promise one; src/protocol/engine/answer-order.test.ts
 * pins the order of answers the pacer held).
 */
async function answerIds(
  server: { next(): Promise<unknown> },
  count: number,
  size: number,
): Promise<number[]> {
  const seen: number[] = [];
  for (let n = 0; n < count; n++) {
    const answer = (await server.next()) as Answer;
    expect(answer.result?.content[0]?.text).toHaveLength(size);
    expect(seen).not.toContain(answer.id);
    seen.push(answer.id as number);
  }
  return seen.sort((a, b) => a - b);
}

describe('a stdio client that sends many requests for big answers at once', () => {
  it('never has more than the queue limit and a wave of answers waiting unwritten, and gets them all', async () => {
    using server = stdioServer();
    await server.initialize('2025-11-25');
    server.child.stdout.pause();
    // 64 answers of 1 MiB in one chunk: the stdio transport delivered them 64 at a time, all 64 ran in
    // one turn and 64 MiB waited for the client.
    const count = 64;
    server.child.stdin.write(
      Array.from({ length: count }, (_, i) => `${JSON.stringify(blob(i, MiB))}\n`).join(''),
    );
    server.child.stdout.resume();
    expect(await answerIds(server, count, MiB)).toEqual(ids(count));
    const { peakQueuedBytes, blobs } = await server.peak();
    expect(blobs).toBe(count);
    // The queue's limit, plus what one wave produced before the queue said it was full.
    expect(peakQueuedBytes).toBeGreaterThan(MiB);
    expect(peakQueuedBytes).toBeLessThan(BUDGET + 4 * MiB);
  });
});

describe('a stdio client that stops reading while a tool floods it with log messages', () => {
  it('gets the answer; the log messages past the queue limit are dropped, not queued', async () => {
    using server = stdioServer();
    await server.initialize('2025-11-25');
    server.child.stdout.pause();
    // 200,000 log messages of ≈150 characters: 30 MB queued for the client before they were dropped.
    const count = 200_000;
    server.send({
      jsonrpc: '2.0',
      id: 'c',
      method: 'tools/call',
      params: { name: 'chatter', arguments: { count } },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.child.stdout.resume();
    let logs = 0;
    for (;;) {
      const message = (await server.next()) as Answer & { method?: string };
      if (message.method === 'notifications/message') logs += 1;
      else {
        expect(message).toMatchObject({ id: 'c', result: { content: [{ text: 'chattered' }] } });
        break;
      }
    }
    expect(logs).toBeGreaterThan(1000);
    expect(logs).toBeLessThan(count);
    const { peakQueuedBytes } = await server.peak();
    expect(peakQueuedBytes).toBeLessThan(BUDGET + 4 * MiB);
  });
});

describe('requests waiting for their turn', () => {
  it('are taken out of the line by notifications/cancelled: never run, never answered', async () => {
    using server = stdioServer();
    await server.initialize('2025-11-25');
    // One chunk (one slice of the transport): 62 calls, then the cancellation of the last. A wave of a
    // few starts; the rest wait, the last among them, when the cancellation arrives.
    const count = 62;
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: count - 1, reason: 'changed my mind' },
    };
    server.child.stdin.write(
      [...Array.from({ length: count }, (_, i) => blob(i, MiB / 4)), cancel]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    expect(await answerIds(server, count - 1, MiB / 4)).toEqual(ids(count - 1));
    const { blobs } = await server.peak(); // the next line is the peak's answer: none for the cancelled call
    expect(blobs).toBe(count - 1);
  });

  it('are all answered when stdin ends before their turn, then the server exits 0', async () => {
    using server = stdioServer();
    await server.initialize('2025-11-25');
    const count = 40;
    server.child.stdin.end(
      Array.from({ length: count }, (_, i) => `${JSON.stringify(blob(i, MiB / 4))}\n`).join(''),
    );
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    expect(await answerIds(server, count, MiB / 4)).toEqual(ids(count));
    expect(await exited).toBe(0);
  });
});

/** Judges a batch's answers: each is 1 MiB, or -31429 `batch-answers`; returns how many were answered. */
function judgeBatch(answers: Answer[], count: number): number {
  expect(answers.map((a) => a.id).sort()).toEqual(Array.from({ length: count }, (_, i) => `b${i}`).sort());
  let answered = 0;
  for (const answer of answers) {
    if (answer.result) {
      expect(answer.result.content[0]?.text).toHaveLength(MiB);
      answered += 1;
    } else {
      expect(answer.error).toMatchObject({ code: -31429, data: { limit: 'batch-answers' } });
      expect(answer.error?.message).toMatch(
        /^Not run: the answers of this connection's unfinished JSON-RPC batches already hold \d+ bytes \(the limit is 8388608\); send this request on its own or in a later batch$/,
      );
    }
  }
  // The budget in answers, and at most a wave more (those running when it was reached finish).
  expect(answered).toBeGreaterThanOrEqual(BUDGET / MiB);
  expect(answered).toBeLessThan(BUDGET / MiB + 4);
  return answered;
}

const batchOf = (count: number) => Array.from({ length: count }, (_, i) => blob(`b${i}`, MiB));

describe('a JSON-RPC batch whose answers are big (2025-03-26)', () => {
  it('on stdio: answers up to maxBatchAnswerBytes, and the calls past it never run', async () => {
    using server = stdioServer();
    await server.initialize('2025-03-26');
    const count = 30;
    server.send(batchOf(count));
    const answers = (await server.next()) as Answer[];
    const answered = judgeBatch(answers, count);
    expect((await server.peak()).blobs).toBe(answered);
  });

  it('over HTTP: the same, in the batch POST’s answer', async () => {
    // The limits fixture (its `blob` tool too), served over HTTP on 127.0.0.1.
    const limits = new URL('./fixtures/limits-server.mjs', import.meta.url).href;
    const { default: createServer } = (await import(limits)) as { default: () => Server };
    served.handle = await serveHttp(createServer(), { port: 0, responseMode: 'json' });
    const url = served.handle.url;
    const sid = await open(url, '2025-03-26');
    const count = 30;
    const response = await post(url, batchOf(count), { 'mcp-session-id': sid });
    expect(response.status).toBe(200);
    judgeBatch((await response.json()) as Answer[], count);
  });
});
