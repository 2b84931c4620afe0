/**
 * Text from a server (or, through the gateway, from a model) made safe to show on a terminal. A terminal
 * obeys what it is sent: an escape sequence can clear the screen, move the cursor up and overwrite the
 * line that said a tool may be destructive, retitle the window, or (on some terminals) write to the
 * clipboard; a carriage return starts the line again over what it showed; bidirectional overrides
 * ("Trojan Source") show text in another order than it is. So every character that steers rather than
 * shows is printed as its escape (`\x1b`, `\u202e`): control characters (C0 but newline and tab, DEL, C1)
 * and the bidirectional controls. A CRLF line end is a plain newline. One linear pass.
 *
 * What `toolwire` writes on stderr (questions, progress, task status, failures) always goes through
 * `terminalText`; what it writes on stdout does when stdout is a terminal (`printOut`). Piped, the
 * output is the server's text as it was sent, for the program that reads it.
 * @module
 */

/** C0 controls but tab and newline, DEL, C1, and the bidirectional controls (marks, embeddings, overrides, isolates). */
const STEERING =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escaped(char: string): string {
  if (char === '\r\n') return '\n';
  if (char === '\n') return '\\n';
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every character that would steer a terminal written out as its escape. */
export function terminalText(text: string): string {
  return text.replace(STEERING, escaped);
}

/** Line breaks: newline and carriage return, and the Unicode line and paragraph separators. */
const LINE_BREAKS = /[\n\r\u2028\u2029]/g;

/**
 * `text` (a server's name, a tool's name or title, a caller, a reason) for a field that is one line of a
 * listing or a question: its line breaks written out as escapes (`\n`), so that it cannot end the line and
 * write what reads as the next field (`why: read-only`), piped or not (on a terminal, `printOut` and
 * `printErr` escape the rest of what steers it).
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, escaped);
}

/** Writes to stdout: as it is when piped, through `terminalText` when stdout is a terminal. */
export function printOut(text: string, stream: NodeJS.WriteStream = process.stdout): void {
  stream.write(stream.isTTY ? terminalText(text) : text);
}

/**
 * Writes `value` as JSON (indented, a newline after) to stdout; on a terminal, every character that would
 * steer it is a JSON escape (`\u007f`, `\u0085`, `\u202e`): still valid JSON, unlike `terminalText`'s
 * `\x7f`. JSON.stringify escapes C0 itself, and outside strings writes only ASCII punctuation.
 */
export function printJson(value: unknown, stream: NodeJS.WriteStream = process.stdout): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  stream.write(stream.isTTY ? text.replace(STEERING, jsonEscaped) : text);
}

function jsonEscaped(char: string): string {
  return char === '\r\n' ? '\\r\\n' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Writes to stderr, always through `terminalText`: what is written there is for a person. */
export function printErr(text: string, stream: NodeJS.WriteStream = process.stderr): void {
  stream.write(terminalText(text));
}
