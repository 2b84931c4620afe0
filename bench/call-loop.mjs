// A cheap closed-loop load generator for stateful Streamable HTTP `tools/call` (JSON answers), for rows
// where the generator shares two cores with the servers under test (bench/redis.mjs): every CPU µs it
// spends is one the servers lack, so it spends few, and measures what it spent.
// - Requests are serialized once per (worker, instance): head and body in one Buffer whose JSON-RPC id
//   has a fixed width (10 digits) and is rewritten in place for each call, written with one socket write.
// - `inFlight` workers, each one request in flight at a time over keep-alive connections of its own (raw
//   `net` sockets, HTTP/1.1): one to its instance (sticky), or one to each instance, the worker's calls
//   alternating between them (round robin, as a balancer spreading requests would).
// - Every answer is checked, not only framed: status 200, a body framed by Content-Length or chunked
//   encoding, parsed as JSON, whose `id` is the call's and whose `result` is not an `isError` one.
//   Anything else counts as a failure (`errors`, with the first one's text).
// - The generator's own CPU (this process, all threads, /proc schedstat) is measured around the run
//   like the servers', and reported next to theirs.
import { connect } from 'node:net';
import { cpuMicros, percentile } from './load.mjs';

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const ID_WIDTH = 10;
const ID_BASE = 1_000_000_000; // ids ID_BASE + n keep 10 digits for n < 9e9

/** One request's bytes: head and body, with the offset of its id's digits. */
function requestBuffer(url, sessionId, params) {
  const marker = '"id":';
  const body = `{"jsonrpc":"2.0",${marker}${'0'.repeat(ID_WIDTH)},"method":"tools/call","params":${JSON.stringify(params)}}`;
  const head =
    `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
    'content-type: application/json\r\naccept: application/json, text/event-stream\r\n' +
    `mcp-protocol-version: 2025-06-18\r\nmcp-session-id: ${sessionId}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const bytes = Buffer.from(head + body, 'utf8');
  return { bytes, idAt: Buffer.byteLength(head) + body.indexOf(marker) + marker.length };
}

/** Why a complete response is not a good answer to call `id` (undefined: it is one). */
function check(status, body, id) {
  if (status !== 200) return `status ${status}: ${body.slice(0, 200)}`;
  let message;
  try {
    message = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 200)}`;
  }
  if (message?.id !== id) return `id ${message?.id} for call ${id}`;
  if (typeof message.result !== 'object' || message.result === null || message.result.isError)
    return `not a result: ${body.slice(0, 200)}`;
  return undefined;
}

/**
 * The status and body of the one response at the start of `buffer` and where it ends, or undefined while
 * it is incomplete; throws on a response it cannot frame.
 */
function frame(buffer) {
  const headEnd = buffer.indexOf(CRLF_CRLF);
  if (headEnd === -1) return undefined;
  const head = buffer.toString('latin1', 0, headEnd).toLowerCase();
  const status = Number(head.slice(9, 12));
  const start = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) {
    const end = start + Number(length[1]);
    return buffer.length < end ? undefined : { status, body: buffer.toString('utf8', start, end), end };
  }
  if (!/\r\ntransfer-encoding: *chunked/.test(head)) throw new Error(`an unframed response: ${head}`);
  let body = '';
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('a malformed chunk size');
    if (size === 0) {
      const end = buffer.indexOf(CRLF_CRLF, lineEnd);
      return end === -1 ? undefined : { status, body, end: end + 4 };
    }
    const dataEnd = lineEnd + 2 + size;
    if (buffer.length < dataEnd + 2) return undefined;
    body += buffer.toString('utf8', lineEnd + 2, dataEnd);
    at = dataEnd + 2;
  }
}

/** A keep-alive connection with one request in flight; `onResponse(status, body)` gets each answer. */
class Connection {
  constructor(url, onResponse, onFailure) {
    this.buffer = Buffer.alloc(0);
    this.socket = connect(Number(url.port || 80), url.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      let framed;
      try {
        framed = frame(this.buffer);
      } catch (error) {
        onFailure(error);
        return;
      }
      if (!framed) return;
      this.buffer = this.buffer.subarray(framed.end);
      onResponse(framed.status, framed.body);
    });
    this.socket.on('error', (error) => onFailure(error));
    this.socket.on('close', () => onFailure(new Error('the server closed a connection')));
  }

  destroy() {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

/**
 * Workers over keep-alive connections to `instances` (their URLs), opened once and kept across runs (the
 * warm-up's and the measured one's). `sessionOf(i)`: the session id to use on instance i. `roundRobin`:
 * each worker alternates between all instances; otherwise worker w stays on instance w mod N.
 */
export class CallLoop {
  constructor({ instances, sessionOf, params, inFlight, roundRobin }) {
    const urls = instances.map((u) => new URL(u));
    this.urls = urls;
    this.roundRobin = roundRobin;
    this.broken = undefined; // the error that broke a connection: every later run fails
    this.run = undefined; // the run in progress
    this.workers = Array.from({ length: inFlight }, (_, w) => {
      const targets = roundRobin ? urls.map((_, i) => i) : [w % urls.length];
      const worker = { index: w, count: 0, id: 0, start: 0, connections: [], requests: [] };
      const onResponse = (status, body) => this.answered(worker, status, body);
      const onFailure = (error) => {
        this.broken ??= error;
        // A broken connection ends the run: its worker cannot go on, and a run with failures is failed.
        this.run?.fail(error.message);
        this.run?.finish();
      };
      for (const i of targets) {
        worker.connections.push(new Connection(urls[i], onResponse, onFailure));
        worker.requests.push(requestBuffer(urls[i], sessionOf(i), params));
      }
      return worker;
    });
  }

  /**
   * `total` calls, or until `maxMs` passes; `pids`: processes whose CPU to read around the run. Resolves
   * { calls, errors, firstError, callsPerSec, p50Ms, p99Ms, generatorCpu, cpuOf[] } (CPU in µs per call,
   * the generator's own: this process, all its threads).
   */
  measure({ total, maxMs, pids = [] }) {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve) => {
      const latencies = new Float64Array(total);
      const run = {
        total,
        done: 0,
        sent: 0,
        errors: 0,
        firstError: undefined,
        active: this.workers.length,
        latencies,
        finished: false,
        fail(text) {
          run.errors++;
          run.firstError ??= text;
        },
        finish: () => {
          if (run.finished) return;
          run.finished = true;
          this.run = undefined;
          const elapsed = performance.now() - t0;
          const cpu = [process.pid, ...pids].map((pid, i) => (cpuMicros(pid) - cpu0[i]) / run.done);
          const sorted = latencies.subarray(0, run.done).sort();
          resolve({
            calls: run.done,
            errors: run.errors,
            firstError: run.firstError,
            callsPerSec: (run.done / elapsed) * 1000,
            p50Ms: percentile(sorted, 50),
            p99Ms: percentile(sorted, 99),
            generatorCpu: cpu[0],
            cpuOf: cpu.slice(1),
          });
        },
      };
      this.run = run;
      const cpu0 = [process.pid, ...pids].map((pid) => cpuMicros(pid));
      const t0 = performance.now();
      run.deadline = t0 + maxMs;
      for (const worker of this.workers) this.next(worker);
    });
  }

  answered(worker, status, body) {
    const run = this.run;
    if (!run) return;
    run.latencies[run.done++] = performance.now() - worker.start;
    const problem = check(status, body, worker.id);
    if (problem) run.fail(problem);
    this.next(worker);
  }

  /** The worker's next call, or its end. */
  next(worker) {
    const run = this.run;
    if (!run) return;
    if (run.sent >= run.total || performance.now() >= run.deadline) {
      if (--run.active === 0) run.finish();
      return;
    }
    const n = run.sent++;
    const at = this.roundRobin ? (worker.index + worker.count++) % this.urls.length : 0;
    const request = worker.requests[at];
    worker.id = ID_BASE + n;
    request.bytes.write(String(worker.id), request.idAt, 'latin1');
    worker.start = performance.now();
    worker.connections[at].socket.write(request.bytes);
  }

  close() {
    for (const worker of this.workers) for (const c of worker.connections) c.destroy();
  }
}
