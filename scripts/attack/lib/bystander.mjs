// The bystander: another caller of the same server process, in its own session on its own keep-alive
// connection, calling `ping` and `echo` in turn (10 ms apart) and timing each answer. Its latencies with no
// attack (the baseline) and during one tell how much longer one caller's attack made another caller wait.
// It checks every answer (echo returns exactly its own text) and reads the server's heap after GC through
// the target's `memory` tool.
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpPool } from '../../../bench/http-pool.mjs';
import { HANDSHAKE_VERSION, answerTo, messagesOf, openSession } from './http.mjs';

const PAUSE_MS = 10;
const REQUEST_TIMEOUT_MS = 15_000;

export class Bystander {
  #pool;
  #session;
  #id = 0;
  #loop;
  #running = false;
  /** The request in flight: when it was sent (a hang counts for as long as it has lasted). */
  #inFlightSince;
  latencies = [];
  /** The first few errors, and how many there were. */
  errors = [];
  errorCount = 0;

  constructor(url, { headers = {}, stateful = true } = {}) {
    this.url = url;
    this.headers = headers;
    this.stateful = stateful;
  }

  async open() {
    if (this.stateful) this.#session = await openSession(this.url, { headers: this.headers });
    this.#pool = new HttpPool(this.url, 1);
  }

  /** One request; resolves its response message (rejects on a wrong status or after the deadline). */
  async request(method, params) {
    const id = `bystander-${++this.#id}`;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': HANDSHAKE_VERSION,
      ...(this.#session ? { 'mcp-session-id': this.#session } : {}),
      ...this.headers,
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${method}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
        REQUEST_TIMEOUT_MS,
      );
    });
    try {
      const res = await Promise.race([this.#pool.post(headers, body), deadline]);
      const message =
        res.status === 200 ? answerTo(messagesOf(res.headers['content-type'], res.body), id) : undefined;
      if (!message) throw new Error(`${method}: HTTP ${res.status} ${res.body.slice(0, 160)}`);
      return message;
    } catch (error) {
      // A connection stuck behind a request that never ends is replaced; the time still counts.
      this.#pool.destroy();
      this.#pool = new HttpPool(this.url, 1);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One timed ping or echo, checked; records its latency (and an error when the answer is wrong). */
  async probe() {
    const n = this.#id + 1;
    const started = performance.now();
    this.#inFlightSince = started;
    try {
      if (n % 2) {
        const message = await this.request('ping');
        if (!message.result) throw new Error(`ping: ${JSON.stringify(message).slice(0, 160)}`);
      } else {
        const text = `bystander ${n}`;
        const message = await this.request('tools/call', { name: 'echo', arguments: { text } });
        const got = message.result?.content?.[0]?.text;
        if (got !== text)
          throw new Error(`echo: expected ${text}, got ${JSON.stringify(message).slice(0, 160)}`);
      }
    } catch (error) {
      this.errorCount++;
      if (this.errors.length < 3) this.errors.push(error.message);
    } finally {
      this.#inFlightSince = undefined;
      this.latencies.push(performance.now() - started);
    }
  }

  /** Probes for `ms` (no attack running): the baseline's median latency. */
  async baseline(ms) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      await this.probe();
      await sleep(PAUSE_MS);
    }
    const stats = { ...this.#stats(), errorCount: this.errorCount, errors: this.errors };
    this.latencies = [];
    this.errors = [];
    this.errorCount = 0;
    return stats;
  }

  /** Starts probing in the background, until `stop()`. */
  start() {
    this.latencies = [];
    this.errors = [];
    this.errorCount = 0;
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        await this.probe();
        await sleep(PAUSE_MS);
      }
    })();
  }

  /** Stops probing; the latencies seen (a request still waiting counts for as long as it has waited). */
  async stop() {
    this.#running = false;
    const settled = await Promise.race([this.#loop.then(() => true), sleep(1000).then(() => false)]);
    const stats = this.#stats();
    const since = this.#inFlightSince;
    if (!settled && since !== undefined) stats.max = Math.max(stats.max, performance.now() - since);
    return { ...stats, errorCount: this.errorCount, errors: [...this.errors], hung: !settled };
  }

  #stats() {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      count: sorted.length,
      p50: sorted[sorted.length >> 1] ?? Number.NaN,
      max: sorted.at(-1) ?? Number.NaN,
    };
  }

  /** The server's heap after a full GC and its RSS, in MB, through the target's `memory` tool. */
  async memory() {
    const message = await this.request('tools/call', { name: 'memory', arguments: {} });
    const value = message.result?.structuredContent;
    if (!value?.gc) throw new Error(`memory: ${JSON.stringify(message).slice(0, 160)}`);
    return {
      heapMb: value.heapUsed / 2 ** 20,
      rssMb: value.rss / 2 ** 20,
      stallWallMs: value.stallWallMs,
      stallCpuMs: value.stallCpuMs,
    };
  }

  close() {
    this.#running = false;
    this.#pool?.destroy();
  }
}
