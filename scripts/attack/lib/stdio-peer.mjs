// A raw peer on a stdio server's pipes: writes exact bytes, reads every line the server writes, parses it
// as JSON (a line that is not JSON is kept as a failure: stdout must carry MCP messages only), and finds
// responses by id.

const INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'toolwire-attack', version: '1.0.0' },
};

export class StdioPeer {
  /** Every message the server wrote, in order. */
  messages = [];
  /** Lines that held a batch (an array) of answers. */
  batches = 0;
  /** Lines on stdout that were not JSON. */
  garbage = [];
  /** The first response to each id, by the id's JSON text. */
  #answers = new Map();
  #waiters = new Set();
  #buffer = [];
  #nextId = 1;

  /**
   * `keep`: a function applied to every message before it is kept (to keep less of huge answers);
   * `onMessage`: called with every message as it comes (to answer the server's requests).
   */
  constructor(child, { keep = (message) => message, onMessage } = {}) {
    this.child = child;
    this.keep = keep;
    this.onMessage = onMessage;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => this.#onData(chunk));
  }

  #onData(chunk) {
    // Only the new chunk is searched for a newline: a line of 100 MB costs one pass, not one per chunk.
    const at = chunk.indexOf('\n');
    if (at === -1) {
      this.#buffer.push(chunk);
      return;
    }
    const lines = chunk.split('\n');
    lines[0] = this.#buffer.join('') + lines[0];
    this.#buffer = [lines.pop() ?? ''];
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message;
      try {
        message = this.keep(JSON.parse(line));
      } catch {
        this.garbage.push(line.slice(0, 200));
        continue;
      }
      // A batch answer is one line holding an array: each of its messages counts on its own.
      if (Array.isArray(message)) this.batches++;
      for (const one of Array.isArray(message) ? message : [message]) this.#take(one);
    }
  }

  #take(message) {
    this.onMessage?.(message);
    this.messages.push(message);
    if (message?.method === undefined && message?.id !== undefined) {
      const key = JSON.stringify(message.id);
      if (!this.#answers.has(key)) this.#answers.set(key, message);
    }
    for (const waiter of this.#waiters) waiter.check(message);
  }

  /** Writes bytes as given (nothing added). Resolves once the pipe took them (or failed). */
  write(bytes) {
    return new Promise((resolve) => this.child.stdin.write(bytes, () => resolve()));
  }

  /** The response to `id`, received already or within `timeoutMs`. */
  answer(id, timeoutMs = 10_000) {
    const key = JSON.stringify(id);
    const found = this.#answers.get(key);
    if (found) return Promise.resolve(found);
    return this.waitFor((m) => m.method === undefined && JSON.stringify(m.id) === key, timeoutMs);
  }

  /** Forgets the answers received (before ids are used again). */
  forgetAnswers() {
    this.#answers.clear();
  }

  /** Resolves the first message from now on that `test` accepts. */
  waitFor(test, timeoutMs = 10_000) {
    return new Promise((resolve, reject) => {
      const waiter = {
        check: (message) => {
          if (!test(message)) return;
          this.#waiters.delete(waiter);
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** A fresh id no attack frame uses. */
  id() {
    return `attack-${this.#nextId++}`;
  }

  /** Sends a request and resolves its response (rejects after `timeoutMs`). */
  async request(method, params, timeoutMs = 10_000) {
    const id = this.id();
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    return this.answer(id, timeoutMs);
  }

  /** initialize + notifications/initialized (handshake era, 2025-11-25 unless told). */
  async initialize(protocolVersion = INITIALIZE.protocolVersion) {
    const response = await this.request('initialize', { ...INITIALIZE, protocolVersion });
    if (!response.result) throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return response.result;
  }
}
