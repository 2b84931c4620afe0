// Reads SSE events from a fetch Response, for wire-level HTTP tests. A JSON answer (a server may answer a
// request so, e.g. 2025-11-25's tasks/get) reads as one event holding its body.
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/**
 * How long `next` waits for an event by default: what it waits for is an event a busy machine may bring
 * later (as expect.poll's 10 s and RawWire's 15 s); it returns as the event comes.
 */
const EVENT_WAIT_MS = 15_000;

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #json: boolean;
  #buffer = '';
  done = false;

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    this.#reader = response.body.getReader();
    this.#json = response.headers.get('content-type')?.startsWith('application/json') === true;
  }

  /** The next event (blank-data events included), or undefined when the stream ended. */
  async next(timeoutMs = EVENT_WAIT_MS): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.#json && this.done) {
        const data = this.#buffer;
        this.#buffer = '';
        return data === '' ? undefined : { data };
      }
      const end = this.#json ? -1 : this.#buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (block.split('\n').every((l) => l.startsWith(':'))) continue;
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') data.push(value);
          else if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'retry') event.retry = Number(value);
        }
        event.data = data.join('\n');
        return event;
      }
      if (this.done) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for an SSE event');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.#reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out waiting for an SSE event')), remaining);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) this.done = true;
      else this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next event that carries a JSON-RPC message, parsed. */
  async nextMessage(timeoutMs = EVENT_WAIT_MS): Promise<Record<string, unknown> | undefined> {
    for (;;) {
      const event = await this.next(timeoutMs);
      if (!event) return undefined;
      if (event.data !== '') return JSON.parse(event.data) as Record<string, unknown>;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}
