/**
 * Newline-delimited JSON framing for the stdio transports.
 *
 * Bytes are kept as Buffers and decoded per complete line, so a multi-byte UTF-8 character split
 * across chunks decodes correctly. Each chunk is scanned once for newlines (no re-scanning of the
 * pending bytes), and at most `maxMessageSize + 1` bytes of an unfinished line are kept; of a longer
 * line, only what names its message (`OversizedLine`: its first 4 KiB, once, and its last 256 bytes).
 * @module
 */
import { withoutStack } from '../../protocol/without-stack.js';
import { ErrorCode, LocalErrorCode, ProtocolError, errorMessage } from '../../protocol/errors.js';
import { parsePeerJson } from '../../protocol/json-depth.js';
import { stringifyJson } from '../../protocol/json-text.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { MessageTooLargeDetails } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import { OversizedLine, type LineFacts } from './oversized-line.js';

/** 4 MiB. */
export const DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One outcome of decoding: a parsed value, a line that is not JSON, or a line that was too long. */
export type DecodedItem =
  | { kind: 'message'; value: unknown }
  | { kind: 'parse-error'; error: ProtocolError }
  | { kind: 'too-large'; error: TransportError };

export interface LineDecoderOptions {
  /** The largest line accepted, in bytes, excluding the line terminator. Default 4 MiB. */
  maxMessageSize?: number;
}

/**
 * Splits a byte stream into lines and parses each as JSON.
 * Blank lines are skipped and a trailing `\r` is dropped. Nothing here throws for bad input:
 * a line that is not JSON yields a `parse-error` item (a `ProtocolError` with code -32700), and a
 * line longer than `maxMessageSize` yields one `too-large` item and is discarded up to its newline.
 * That item's `details` (`MessageTooLargeDetails`) name the message where its first 4 KiB or its end
 * tell its top-level `id`: it comes as soon as the line is over the limit when its start names the id,
 * else when the line ends, with the id of a line whose last member is `"id"`.
 */
export class LineDecoder {
  readonly maxMessageSize: number;
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside an oversized line: what names it is kept, the rest dropped up to the next newline. */
  private oversized: OversizedLine | undefined;

  constructor(options: LineDecoderOptions = {}) {
    const max = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new RangeError(`maxMessageSize must be a positive integer, got ${String(max)}`);
    }
    this.maxMessageSize = max;
  }

  /** Bytes of an unfinished line currently held (of an oversized line: the fixed window of its end). */
  get bufferedBytes(): number {
    return this.oversized?.heldBytes ?? this.size;
  }

  /** Feeds one chunk; returns the items of the lines it completed, in order. */
  push(chunk: Uint8Array | string): DecodedItem[] {
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: DecodedItem[] = [];
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) break;
      this.completeLine(bytes, start, newline, out);
      start = newline + 1;
    }
    if (start < bytes.length) this.keepPartial(bytes.subarray(start), out);
    return out;
  }

  /** The input ended: decodes a final line that had no newline, and resets. */
  end(): DecodedItem[] {
    const out: DecodedItem[] = [];
    if (this.oversized || this.size > 0) this.completeLine(EMPTY, 0, 0, out);
    return out;
  }

  /** Drops any unfinished line. */
  reset(): void {
    this.parts = [];
    this.size = 0;
    this.oversized = undefined;
  }

  /** The line made of what is held and `bytes[start, end)` (the newline excluded). */
  private completeLine(bytes: Buffer, start: number, end: number, out: DecodedItem[]): void {
    const oversized = this.oversized;
    if (oversized) {
      oversized.add(bytes, start, end);
      this.reset();
      if (!oversized.reported) out.push(this.tooLarge(oversized.lineBytes, oversized.endFacts()));
      return;
    }
    let length = this.size + (end - start);
    const last = end > start ? bytes[end - 1] : this.parts.at(-1)?.at(-1);
    if (last === CARRIAGE_RETURN) length -= 1;
    if (length > this.maxMessageSize) {
      const line = new OversizedLine(this.parts, bytes, start, end);
      this.reset();
      out.push(this.tooLarge(length, line.endFacts()));
      return;
    }
    // The common case, a whole line inside one chunk: decoded in place (no view, no copy).
    if (this.parts.length === 0) {
      decodeLine(bytes.toString('utf8', start, start + length), out);
      return;
    }
    const line = Buffer.concat([...this.parts, bytes.subarray(start, end)]);
    this.parts = [];
    this.size = 0;
    decodeLine(line.toString('utf8', 0, length), out);
  }

  private keepPartial(tail: Buffer, out: DecodedItem[]): void {
    if (this.oversized) {
      this.oversized.add(tail, 0, tail.length);
      return;
    }
    const size = this.size + tail.length;
    // One spare byte for a '\r' that may precede the newline.
    if (size > this.maxMessageSize + 1) {
      const line = new OversizedLine(this.parts, tail, 0, tail.length);
      this.reset();
      this.oversized = line;
      // Its start names it: reported now, not when (or if) the line ends.
      if (line.headFacts.id !== undefined) {
        line.reported = true;
        out.push(this.tooLarge(size, line.headFacts));
      }
      return;
    }
    // Copy: the caller may reuse its buffer, and a small tail should not pin a large chunk.
    this.parts.push(Buffer.from(tail));
    this.size = size;
  }

  private tooLarge(receivedBytes: number, facts: LineFacts): DecodedItem {
    const details: MessageTooLargeDetails = { maxMessageSize: this.maxMessageSize, receivedBytes, ...facts };
    const error = new TransportError(
      LocalErrorCode.MessageTooLarge,
      `Message exceeds the maximum size of ${this.maxMessageSize} bytes; it was discarded`,
      { details },
    );
    return { kind: 'too-large', error };
  }
}

const EMPTY = Buffer.alloc(0);

function decodeLine(text: string, out: DecodedItem[]): void {
  if (text.trim() === '') return;
  const notJson = notJsonAt(text);
  if (notJson !== -1) {
    out.push({
      kind: 'parse-error',
      error: withoutStack(
        () => new ProtocolError(ErrorCode.ParseError, `Parse error: ${unexpectedToken(text, notJson)}`),
      ),
    });
    return;
  }
  try {
    out.push({ kind: 'message', value: parsePeerJson(text) });
  } catch (error) {
    out.push({
      kind: 'parse-error',
      error: new ProtocolError(ErrorCode.ParseError, `Parse error: ${errorMessage(error)}`, undefined, {
        cause: error,
      }),
    });
  }
}

/** The literals a JSON text may start with a letter of. */
const LITERALS: Readonly<Record<string, string>> = { t: 'true', f: 'false', n: 'null' };

/**
 * Where a line is seen not to be JSON from its first characters, else -1 (JSON.parse decides): a first
 * character no JSON text starts with (`y`, `Hello`), or a letter that does not go on as its literal
 * (`nope`). JSON.parse builds a costly SyntaxError for each line it refuses (≈20 µs), so a command
 * printing plain text on stdout took seconds per 64 KiB of short lines; a message costs one comparison.
 */
function notJsonAt(text: string): number {
  const first = text.charCodeAt(0);
  // `{`, `[`: a message or a batch, left to JSON.parse at once.
  if (first === 0x7b || first === 0x5b) return -1;
  const char = text[0] ?? '';
  const literal = LITERALS[char];
  if (literal !== undefined) {
    for (let at = 1; at < literal.length; at++) if (text[at] !== literal[at]) return at;
    return -1;
  }
  // `"`, `-`, a digit, or JSON whitespace before the value.
  if (char === '"' || char === '-' || (first >= 0x30 && first <= 0x39)) return -1;
  if (char === ' ' || char === '\t' || char === '\r') return -1;
  return 0;
}

/** What JSON.parse says of such a line: all of it quoted, or of a longer one 10 characters either side. */
function unexpectedToken(text: string, at: number): string {
  const end = Math.min(text.length, at + 10);
  const shown = text.length > 20 ? `"${text.slice(0, end)}"${end < text.length ? '...' : ''}` : `"${text}"`;
  return at >= text.length
    ? 'Unexpected end of JSON input'
    : `Unexpected token '${text[at] ?? ''}', ${shown} is not valid JSON`;
}

/**
 * One message (or batch) as one line: its JSON text (`stringifyJson`: `JSON.stringify`, or the text kept
 * for a result serialized once) and `'\n'`. JSON without indentation never holds a raw newline:
 * newlines inside strings are escaped as `\n`, so the line terminator is unambiguous.
 */
export function serializeMessage(message: JsonRpcMessage | JsonRpcMessage[]): string {
  return stringifyJson(message) + '\n';
}
