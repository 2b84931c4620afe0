/**
 * A Server-Sent Events parser following the WHATWG "event stream interpretation" rules: `data:`
 * lines joined with `\n`, `event:`, `id:` (ignored when it contains NULL), `retry:` (digits only),
 * comments, lines ended by CRLF, LF or CR (also split across chunks), and a leading byte order mark.
 * @module
 */

/**
 * One dispatched event. An event without any `data:` line is not dispatched (its `id` and `retry`
 * still count); `data:` with an empty value is dispatched with `data: ''`, as in a browser.
 */
export interface SseEvent {
  /** The `event:` field, `message` when absent. */
  type: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event id of the stream when this event was dispatched (`undefined` if none yet). */
  lastEventId: string | undefined;
}

export interface SseParserOptions {
  /** The last event id carried over from an earlier connection of the same stream. */
  lastEventId?: string;
}

/**
 * Feed it text chunks (already decoded from UTF-8); it returns the events each chunk completed.
 * `lastEventId` and `retry` reflect every complete event seen so far, including empty ones such as
 * the 2025-11-25 priming event. An event cut off by the end of the stream is discarded, as the
 * standard requires, so a reconnection resumes after the last complete event.
 */
export class SseParser {
  #buffer = '';
  #started = false;
  #skipLineFeed = false;
  #type = '';
  #data = '';
  #idBuffer: string | undefined;
  #lastEventId: string | undefined;
  #retry: number | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#idBuffer = options.lastEventId;
    this.#lastEventId = options.lastEventId;
  }

  /** The id of the last complete event that set one (the `Last-Event-ID` to resume with). */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** The last `retry:` value, in ms, if the server sent one. */
  get retry(): number | undefined {
    return this.#retry;
  }

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#skipLineFeed && text.length > 0) {
      if (text.startsWith('\n')) text = text.slice(1);
      this.#skipLineFeed = false;
    }
    const scanFrom = this.#buffer.length; // what is buffered holds no line ending
    this.#buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = nextLineEnd(this.#buffer, Math.max(start, scanFrom));
      if (end === -1) break;
      const line = this.#buffer.slice(start, end);
      start = end + 1;
      if (this.#buffer[end] === '\r') {
        if (start === this.#buffer.length) this.#skipLineFeed = true;
        else if (this.#buffer[start] === '\n') start += 1;
      }
      const event = this.#line(line);
      if (event) events.push(event);
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        this.#data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    this.#lastEventId = this.#idBuffer;
    const type = this.#type === '' ? 'message' : this.#type;
    const data = this.#data;
    this.#type = '';
    this.#data = '';
    if (data === '') return undefined;
    return { type, data: data.slice(0, -1), lastEventId: this.#lastEventId };
  }
}

function nextLineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a || code === 0x0d) return i;
  }
  return -1;
}
