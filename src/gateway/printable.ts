/**
 * What the gateway writes to its stderr from text others chose (an upstream's log line, its stderr): each
 * control character (C0, DEL, C1) and bidi control as its `\uXXXX` escape, so that an upstream cannot steer
 * the terminal — move the cursor back over a line's `[name] ` prefix, or write what reads as the gateway's own
 * line.
 * @module
 */

/** Control characters (C0, DEL, C1) and bidi controls: what an upstream could steer a terminal with. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `line` with each character of UNPRINTABLE as its `\uXXXX` escape (linear time). */
export function printable(line: string): string {
  return line.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
