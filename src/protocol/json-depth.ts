/**
 * Nesting bounds of JSON read from a peer. `JSON.parse` reads any depth, but everything recursive after it
 * does not: a 100,000-deep array argument made validation, digests and `JSON.stringify` throw `Maximum call
 * stack size exceeded`, and that internal message went back to the client.
 * @module
 */
import type { MessageTooLargeDetails } from './transport.js';

/**
 * The deepest nesting of objects and arrays in a value that is validated or handed to a tool: tool
 * arguments, structured content, anything checked against a schema (the value itself is level 1).
 */
export const MAX_VALUE_DEPTH = 64;

/**
 * The deepest nesting of a whole JSON-RPC message a peer accepts (the message object is level 1): room for
 * the envelope around a value of {@link MAX_VALUE_DEPTH} levels, and far below what exhausts the stack.
 */
export const MAX_MESSAGE_DEPTH = 128;

/**
 * Whether `value` holds objects or arrays nested deeper than `maxDepth` levels (a primitive is level 0, the
 * value itself level 1). Time linear in the size of the value, recursion at most `maxDepth` deep.
 */
export function isNestedDeeper(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (isNestedDeeper(item, maxDepth - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (isNestedDeeper((value as Record<string, unknown>)[key], maxDepth - 1)) return true;
  }
  return false;
}

/**
 * The deepest nesting of JSON text a transport parses; deeper text is refused unparsed, as a parse error
 * with no id. Between {@link MAX_MESSAGE_DEPTH} and this the engine refuses the parsed message, and a
 * request gets -32602 with its id: parsing 1024 levels costs ≈0.1 ms and no memory to speak of, while a
 * million levels (2 MB) cost ≈400 ms and over 100 MB.
 */
export const MAX_TEXT_DEPTH = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON `text` opens objects and arrays more than `maxDepth` levels deep, brackets inside strings
 * aside. One pass, stopping at the first bracket past the bound; it checks nothing else (malformed text
 * is left to `JSON.parse`). `JSON.parse` reads a million-deep `[[[…]]]` (2 MB) in ≈400 ms and over 100 MB
 * before anything counts levels; this stops after `maxDepth + 1` characters. Text no longer than
 * `maxDepth` (most messages) is not read at all.
 */
export function isTextNestedDeeper(text: string, maxDepth: number): boolean {
  // Deeper than maxDepth takes more than maxDepth opening brackets.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i + 1);
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * Where the string that starts at `from` ends: its first quote not escaped (after an even run of
 * backslashes), or the end of the text. `indexOf` finds quotes far faster than a loop over every
 * character of a long string (a base64 image); each backslash is counted once.
 */
function closingQuote(text: string, from: number): number {
  for (let start = from; ;) {
    const quote = text.indexOf('"', start);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (quote - backslashes > start && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return quote;
    start = quote + 1;
  }
}

/**
 * JSON text refused unparsed for its depth, with what one more linear pass read at its top level: the
 * message's `id` and whether it answers a request (a top-level `result` or `error`). A peer refusing an
 * answer this way can fail the request it answers at once, instead of leaving it to its timeout.
 */
export class DeepJsonError extends SyntaxError {
  /** The top-level `id` (a number or a string), if the text is an object that has one. */
  readonly id: number | string | undefined;
  /** Whether the text is an object with a top-level `result` or `error`: an answer to a request. */
  readonly answer: boolean;

  constructor(text: string, maxDepth: number) {
    super(`JSON nested deeper than ${maxDepth} levels`);
    const facts = topLevelFacts(text);
    this.id = facts.id;
    this.answer = facts.answer;
  }
}

const COLON = 0x3a;
const COMMA = 0x2c;
/** A JSON number at the start of the text `lastIndex` points at. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** What one pass over JSON object text reads at its top level (see {@link topLevelFacts}). */
export interface TopLevelFacts {
  /** The top-level `id`, a number or a string. */
  id: number | string | undefined;
  /** A top-level `result` or `error`: an answer to a request. */
  answer: boolean;
  /** A top-level `method`: a request (with an id) or a notification. */
  request: boolean;
}

/**
 * The top-level `id` of JSON object text and whether it has `result`, `error` or `method`, in one pass
 * over the text (brackets inside strings aside, as in {@link isTextNestedDeeper}); depth does not matter
 * here. Malformed or cut text gives what was read before it went wrong or ended: a string or a number
 * that reaches the end of the text may be cut, and is no id.
 */
export function topLevelFacts(text: string): TopLevelFacts {
  let id: number | string | undefined;
  let answer = false;
  let request = false;
  let depth = 0;
  let key: string | undefined; // the top-level key whose value comes next
  let inKey = false; // at depth 1, before the colon of a member
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (depth === 1 && inKey) key = text.slice(i + 1, Math.min(end, i + 8));
      else if (depth === 1 && key === 'id') id = stringId(text.slice(i, end + 1));
      i = end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth === 1) inKey = code === OPEN_BRACE;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    } else if (depth === 1 && code === COLON) {
      inKey = false;
      if (key === 'result' || key === 'error') answer = true;
      else if (key === 'method') request = true;
    } else if (depth === 1 && code === COMMA) {
      inKey = true;
      key = undefined;
    } else if (
      depth === 1 &&
      key === 'id' &&
      id === undefined &&
      (code === 0x2d || (code >= 0x30 && code <= 0x39))
    ) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0] ?? '';
      if (number !== '' && i + number.length < text.length) id = Number(number);
      i += Math.max(number.length - 1, 0);
    }
  }
  return { id, answer, request };
}

/**
 * What names a message from its JSON text, or the start of it: its top-level `id`, and whether it is an
 * answer (`result` or `error`) or a request (`method`) — as the `details` of a message refused for its size
 * give it (`MessageTooLargeDetails`).
 */
export function messageNaming(text: string): Pick<MessageTooLargeDetails, 'id' | 'kind'> {
  const facts = topLevelFacts(text);
  const kind = facts.answer === facts.request ? undefined : facts.answer ? 'answer' : 'request';
  return {
    ...(facts.id === undefined ? {} : { id: facts.id }),
    ...(kind === undefined ? {} : { kind }),
  };
}

function stringId(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `JSON.parse` of text read from a peer, refusing text nested deeper than `maxDepth` (default
 * {@link MAX_TEXT_DEPTH}) before parsing it. Throws a `SyntaxError` for either, as `JSON.parse` does, so
 * every caller answers both as a parse error (-32700).
 */
export function parsePeerJson(text: string, maxDepth: number = MAX_TEXT_DEPTH): unknown {
  if (isTextNestedDeeper(text, maxDepth)) throw new DeepJsonError(text, maxDepth);
  return JSON.parse(text) as unknown;
}
