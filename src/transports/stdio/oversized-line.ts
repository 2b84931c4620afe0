/**
 * What the stdio framing keeps of a line over the size limit while it discards the rest: enough to name
 * the message, so that the engine can fail the request it answers, or refuse the request with its own id,
 * at once instead of at a timeout.
 * @module
 */
import { messageNaming } from '../../protocol/json-depth.js';
import type { MessageTooLargeDetails } from '../../protocol/transport.js';

/** The bytes kept of a discarded line's start: the envelope of a message usually comes first. */
const HEAD_BYTES = 4096;
/** The bytes kept of a discarded line's end: room for `,"id":…}` after a huge value. */
const TAIL_BYTES = 256;

const CARRIAGE_RETURN = 0x0d;

/** What names a discarded message: its top-level `id` and whether it is an answer or a request. */
export type LineFacts = Pick<MessageTooLargeDetails, 'id' | 'kind'>;

/**
 * A line over the size limit, being discarded: its first {@link HEAD_BYTES} bytes, read once when the
 * line goes over the limit, and a rolling window of its last {@link TAIL_BYTES} bytes, read when it ends.
 * It holds no more than that however long the line, and its work is linear in the line: each chunk copies
 * at most `TAIL_BYTES` of itself into the window, which moves back at most once per `TAIL_BYTES` given.
 */
export class OversizedLine {
  /** What the head names; read once, from the whole head, when the line goes over the limit. */
  readonly headFacts: LineFacts;
  /** Set by the framing once the line was reported (at most once per line). */
  reported = false;
  #bytes = 0;
  #head: Buffer | undefined;
  #headLength = 0;
  /** Twice the window, so that the window moves back to the front once per `TAIL_BYTES` bytes at most. */
  readonly #tail = Buffer.allocUnsafe(2 * TAIL_BYTES);
  #tailLength = 0;

  /** The line so far: what the framing held of it (`held`), then `bytes[start, end)`. */
  constructor(held: readonly Buffer[], bytes: Buffer, start: number, end: number) {
    let total = end - start;
    for (const part of held) total += part.length;
    this.#head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, total));
    for (const part of held) this.add(part, 0, part.length);
    this.add(bytes, start, end);
    this.headFacts = messageNaming(this.#head.toString('utf8', 0, this.#headLength));
    this.#head = undefined; // read once: the rest of the line keeps only the tail
  }

  /** Bytes held for this line once it went over the limit: the tail window, whatever the line's length. */
  get heldBytes(): number {
    return this.#tail.length;
  }

  /** The line's length once it ended: without the `\r` of a `\r\n` terminator. */
  get lineBytes(): number {
    const last = this.#tailLength > 0 ? this.#tail[this.#tailLength - 1] : undefined;
    return last === CARRIAGE_RETURN ? this.#bytes - 1 : this.#bytes;
  }

  /** More of the line: `bytes[start, end)`. */
  add(bytes: Buffer, start: number, end: number): void {
    this.#bytes += end - start;
    const head = this.#head;
    if (head && this.#headLength < head.length) {
      this.#headLength += bytes.copy(head, this.#headLength, start, end);
    }
    if (end - start >= TAIL_BYTES) {
      this.#tailLength = bytes.copy(this.#tail, 0, end - TAIL_BYTES, end);
      return;
    }
    if (this.#tailLength + (end - start) > this.#tail.length) {
      // Keep the last TAIL_BYTES - n bytes of the window; the n new bytes follow them.
      const keep = TAIL_BYTES - (end - start);
      this.#tail.copyWithin(0, this.#tailLength - keep, this.#tailLength);
      this.#tailLength = keep;
    }
    this.#tailLength += bytes.copy(this.#tail, this.#tailLength, start, end);
  }

  /** What names the line once it ended: the head's facts, and the tail's id where the head had none. */
  endFacts(): LineFacts {
    if (this.headFacts.id !== undefined) return this.headFacts;
    const from = Math.max(this.#tailLength - TAIL_BYTES, 0);
    const id = idAtLineEnd(this.#tail.toString('utf8', from, this.#tailLength));
    return id === undefined ? this.headFacts : { ...this.headFacts, id };
  }
}

/**
 * `,"id":<number or string>}` at the very end of a line (JSON whitespace allowed between the tokens and
 * after the brace). In valid JSON that brace closes the top-level object, and the quote before `id`,
 * preceded by a comma, opens a key of that object: a nested `{"id":5}` ends with two braces, and a quote
 * inside a string is escaped. The number is matched as JSON writes one, the string up to its closing quote
 * with JSON's escapes (`JSON.parse` then refuses a raw control character in it).
 */
const ID_AT_END =
  /,[ \t\n\r]*"id"[ \t\n\r]*:[ \t\n\r]*(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")[ \t\n\r]*\}[ \t\n\r]*$/;

/**
 * The top-level `id` of a line's last member, from the line's last bytes (see {@link ID_AT_END}), if the
 * line ends with one. `text` is short (the tail window): the pattern is tried at each comma in it, and
 * each try reads at most to the end.
 */
function idAtLineEnd(text: string): number | string | undefined {
  const value = ID_AT_END.exec(text)?.[1];
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as number | string;
  } catch {
    return undefined;
  }
}
