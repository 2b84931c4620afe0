/**
 * The UTF-8 length of a string, counted without encoding it: what an SSE stream holds unread is counted in
 * bytes (see `SseSink.queuedBytes`).
 * @module
 */

const NOT_ASCII = /[\u0080-\uffff]/;

/** The UTF-8 length of `text` (a lone surrogate counts 3 bytes: it is encoded as U+FFFD). */
export function utf8Length(text: string): number {
  if (!NOT_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a surrogate pair: 4 bytes for 2 code units
      i++;
    } else bytes += 2;
  }
  return bytes;
}
