// A raw stdio peer for wire-level tests: writes exact bytes to a server process and reads its lines.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { serverCommand } from './_setup.js';

/**
 * How long a line is waited for by default: a gateway answering its first `initialize` (started with its
 * upstreams) took more than the 5 s this was on a busy machine.
 */
const NEXT_LINE_MS = 15_000;

export class RawWire {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #lines: string[] = [];
  readonly #waiters: Array<(line: string) => void> = [];
  /** The exit code, once the child exited: the last of its stderr may still be on its way (poll `stderr`). */
  readonly exited: Promise<number | null>;
  /** What the server wrote on stderr so far. */
  stderr = '';

  /** `fixture`: a module for `toolwire serve`, or the whole command (e.g. `toolwire gateway …`). */
  constructor(
    fixture?: string | { command: string; args: string[] },
    options: { env?: Record<string, string> } = {},
  ) {
    const { command, args } = typeof fixture === 'object' ? fixture : serverCommand(fixture);
    this.child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
  }

  write(text: string): void {
    this.child.stdin.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  send(message: unknown): void {
    this.write(JSON.stringify(message));
  }

  /** The next line the server wrote, parsed. */
  async next(timeoutMs = NEXT_LINE_MS): Promise<unknown> {
    return JSON.parse(await this.nextLine(timeoutMs)) as unknown;
  }

  /** The next line the server wrote, as written. */
  nextLine(timeoutMs = NEXT_LINE_MS): Promise<string> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no line from the server')), timeoutMs);
      this.#waiters.push((l) => {
        clearTimeout(timer);
        resolve(l);
      });
    });
  }

  /**
   * The answer to request `id`: lines are read until it comes, each other message handed to `other` (a
   * notification, say) on the way.
   */
  async answer<T = unknown>(id: number | string, other?: (message: { method?: string }) => void): Promise<T> {
    for (;;) {
      const message = (await this.next(20_000)) as { id?: unknown; method?: string };
      if (message.id === id && message.method === undefined) return message as T;
      other?.(message);
    }
  }

  /** Sends a request and returns the next line (the tests send one request at a time). */
  async call(id: number | string, method: string, params?: unknown): Promise<unknown> {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.next();
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<unknown> {
    const result = await this.call(0, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return result;
  }

  /** Stops reading the server's stdout: once the pipe is full, the server's writes wait. */
  pauseReading(): void {
    this.child.stdout.pause();
  }

  resumeReading(): void {
    this.child.stdout.resume();
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(timer);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
