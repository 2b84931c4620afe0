/**
 * Size caps on a tool result: text (text blocks and embedded text resources, in UTF-8 bytes) and binary
 * data (image and audio blocks and embedded blobs, in decoded bytes), each counted across the whole
 * result. Cutting keeps what fits, in order: text is cut at a character boundary and ends with a
 * visible `…[truncated N bytes]` marker; a binary block that does not fit is replaced by a text note.
 *
 * Text far over the cap is cut first, by length alone (`precutText`), before anything reads it: a UTF-16
 * unit is at least one UTF-8 byte, so text past `maxTextBytes + margin` units can never be sent, and
 * counting or redacting it would cost time in proportion to what the tool returned (64 MiB took ≈530 ms
 * of redaction), not to what is sent. Its marker then says `…[truncated at least N bytes]`.
 * @module
 */
import type { ContentBlock, EmbeddedResource } from '../../protocol/types/content.js';
import { decodedSize } from './media-signature.js';

export interface SizeCaps {
  maxTextBytes: number;
  maxBinaryBytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8Length(text: string): number {
  // Counts like TextEncoder (a lone surrogate is 3 bytes, as U+FFFD), without making the bytes and
  // without Node's Buffer: the server layer runs in any runtime.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The marker that ends cut text; `atLeast`: part of what was cut was never read (see `precutText`). */
export function truncationMarker(bytes: number, atLeast = false): string {
  return `…[truncated ${atLeast ? 'at least ' : ''}${bytes} bytes]`;
}

/** The text inside a block, if it holds text. */
function textOf(block: ContentBlock): string | undefined {
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : undefined;
  if (block.type === 'resource' && 'text' in block.resource && typeof block.resource.text === 'string')
    return block.resource.text;
  return undefined;
}

function withText(block: ContentBlock, text: string): ContentBlock {
  if (block.type === 'text') return { ...block, text };
  const resource = (block as EmbeddedResource).resource;
  return { ...(block as EmbeddedResource), resource: { ...resource, text } };
}

/** The base64 data inside a block, if it holds binary. */
function dataOf(block: ContentBlock): string | undefined {
  if (block.type === 'image' || block.type === 'audio')
    return typeof block.data === 'string' ? block.data : '';
  if (block.type === 'resource' && 'blob' in block.resource && typeof block.resource.blob === 'string')
    return block.resource.blob;
  return undefined;
}

/** Total text and binary bytes of `content`. */
export function measure(content: readonly ContentBlock[]): { text: number; binary: number } {
  let text = 0;
  let binary = 0;
  for (const block of content) {
    const value = textOf(block);
    if (value !== undefined) text += utf8Length(value);
    const data = dataOf(block);
    if (data !== undefined) binary += decodedSize(data);
  }
  return { text, binary };
}

/** `text` cut to at most `maxBytes` UTF-8 bytes at a character boundary, and how many bytes went. */
export function cutUtf8(text: string, maxBytes: number): { kept: string; dropped: number } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { kept: text, dropped: 0 };
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { kept: decoder.decode(bytes.subarray(0, end)), dropped: bytes.length - end };
}

/** What `precutText` left: the content, and the UTF-16 units it cut from each block (none: undefined). */
export interface Precut {
  readonly content: readonly ContentBlock[];
  readonly unread: readonly number[] | undefined;
}

/**
 * `content` with at most `maxUnits` UTF-16 units of text in all, cut by length alone (O(1) per block:
 * `slice` shares the string's characters), never inside a surrogate pair. Blocks past the budget keep
 * empty text.
 */
export function precutText(content: readonly ContentBlock[], maxUnits: number): Precut {
  let left = maxUnits;
  let out: ContentBlock[] | undefined;
  let unread: number[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!;
    const text = textOf(block);
    if (text === undefined) continue;
    if (text.length <= left) {
      left -= text.length;
      continue;
    }
    let end = left;
    const last = end > 0 ? text.charCodeAt(end - 1) : 0;
    if (last >= 0xd800 && last <= 0xdbff) end--;
    (out ??= content.slice())[i] = withText(block, text.slice(0, end));
    (unread ??= new Array<number>(content.length).fill(0))[i] = text.length - end;
    left -= end;
  }
  return { content: out ?? content, unread };
}

/**
 * `content` cut to the caps (see the module comment). `unread`: the units `precutText` cut from each
 * block, which count (at a byte each, the least they can be) in its marker.
 */
export function truncateContent(
  content: readonly ContentBlock[],
  caps: SizeCaps,
  unread?: readonly number[],
): ContentBlock[] {
  let textLeft = caps.maxTextBytes;
  let binaryLeft = caps.maxBinaryBytes;
  return content.map((block, i) => {
    const text = textOf(block);
    if (text !== undefined) {
      const { kept, dropped } = cutUtf8(text, textLeft);
      textLeft -= utf8Length(kept);
      const cutBefore = unread?.[i] ?? 0;
      if (dropped === 0 && cutBefore === 0) return block;
      return withText(block, `${kept}${truncationMarker(dropped + cutBefore, cutBefore > 0)}`);
    }
    const data = dataOf(block);
    if (data === undefined) return block;
    const size = decodedSize(data);
    if (size <= binaryLeft) {
      binaryLeft -= size;
      return block;
    }
    const what = block.type === 'resource' ? `resource ${block.resource.uri}` : block.type;
    return {
      type: 'text',
      text: `[${what} omitted: ${size} bytes, over the ${caps.maxBinaryBytes}-byte limit on binary data]`,
    };
  });
}
