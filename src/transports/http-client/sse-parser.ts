/**
 * A Server-Sent Events parser following the WHATWG "event stream interpretation" rules: `data:`
 * lines joined with `\n`, `event:`, `id:` (ignored when it contains NULL), `retry:` (digits only),
 * comments, lines ended by CRLF, LF or CR (also split across chunks), and a leading byte order mark; an
 * event larger than `maxEventSize` is dropped and told as such.
 * @module
 */
import { maxMessageSizeOption } from './message-limit.js';

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
  /**
   * The event (or one of its lines) passed `maxEventSize`: its data is dropped (`data` is empty) and the
   * rest of it is skipped. Given once, as soon as the event passes the limit (not at its end).
   */
  tooLarge?: true;
  /** With `tooLarge`: the first characters of its data (at most 4 KiB), to tell what it was. */
  head?: string;
}

/** What an oversized event keeps of its data to be told by. */
const HEAD = 4096;

export interface SseParserOptions {
  /** The last event id carried over from an earlier connection of the same stream. */
  lastEventId?: string;
  /**
   * The most characters an event's data, or any one line, may have (default 16 MiB): what is held of
   * an event never passes it. A larger event is given as `{ tooLarge: true, data: '' }`.
   */
  maxEventSize?: number;
}

/**
 * Feed it text chunks (already decoded from UTF-8); it returns the events each chunk completed.
 * `lastEventId` and `retry` reflect every complete event seen so far, including empty ones such as
 * the 2025-11-25 priming event. An event cut off by the end of the stream is discarded, as the
 * standard requires, so a reconnection resumes after the last complete event. Each chunk is scanned
 * once: an unfinished line is kept as it came and never scanned again.
 */
export class SseParser {
  readonly #max: number;
  /** The longest line: an event's data, with room for its field name (`data: `). */
  readonly #maxLine: number;
  /** The unfinished line (no line end in it). */
  #partial = '';
  /** The unfinished line passed the limit: the rest of it is dropped. */
  #dropping = false;
  #started = false;
  #skipLineFeed = false;
  #type = '';
  #data = '';
  /** The event passed the limit: its data is dropped until its end. */
  #oversized = false;
  #idBuffer: string | undefined;
  #lastEventId: string | undefined;
  #retry: number | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#idBuffer = options.lastEventId;
    this.#lastEventId = options.lastEventId;
    this.#max = maxMessageSizeOption(options.maxEventSize);
    this.#maxLine = this.#max + 16;
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
      if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
      this.#skipLineFeed = false;
    }
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = nextLineEnd(text, start);
      if (end === -1) break;
      let line: string | undefined = text.slice(start, end);
      if (this.#dropping) line = undefined;
      else if (this.#partial !== '') line = this.#partial + line;
      this.#partial = '';
      this.#dropping = false;
      start = end + 1;
      if (text.charCodeAt(end) === 0x0d) {
        if (start === text.length) this.#skipLineFeed = true;
        else if (text.charCodeAt(start) === 0x0a) start += 1;
      }
      if (line === undefined || line.length > this.#maxLine) this.#oversize(events, line);
      else this.#line(line, events);
    }
    if (start < text.length && !this.#dropping) {
      if (this.#partial.length + (text.length - start) > this.#maxLine) {
        const line = (this.#partial + text.slice(start, start + HEAD + 16)).slice(0, HEAD + 16);
        this.#partial = '';
        this.#dropping = true;
        this.#oversize(events, line);
      } else this.#partial += text.slice(start);
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.#dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        if (this.#oversized) break;
        if (this.#data.length + value.length > this.#max) this.#oversize(events, `data:${value}`);
        else this.#data += `${value}\n`;
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
  }

  /**
   * The event passed the limit (at `line`, when it is known): its data goes, and it is told once, with the
   * start of its data.
   */
  #oversize(events: SseEvent[], line?: string): void {
    const held = this.#data;
    this.#data = '';
    if (this.#oversized) return;
    this.#oversized = true;
    const type = this.#type === '' ? 'message' : this.#type;
    let head = held.slice(0, HEAD);
    if (head.length < HEAD && line?.startsWith('data:')) {
      const value = line.startsWith('data: ') ? line.slice(6) : line.slice(5);
      head += value.slice(0, HEAD - head.length);
    }
    events.push({ type, data: '', lastEventId: this.#lastEventId, tooLarge: true, head });
  }

  #dispatch(events: SseEvent[]): void {
    this.#lastEventId = this.#idBuffer;
    const type = this.#type === '' ? 'message' : this.#type;
    const data = this.#data;
    const oversized = this.#oversized;
    this.#type = '';
    this.#data = '';
    this.#oversized = false;
    if (data === '' || oversized) return;
    events.push({ type, data: data.slice(0, -1), lastEventId: this.#lastEventId });
  }
}

function nextLineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a || code === 0x0d) return i;
  }
  return -1;
}
