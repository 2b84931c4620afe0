/**
 * An upstream's stderr, passed through to the gateway's as lines that say whose they are: `[demo] …`. A
 * child's stderr inherited as it is reads like the gateway's own (the demo server's `toolwire: serving …
 * (try: …)` hint was `npm start`'s first line). Line-buffered, so that two upstreams' lines do not
 * interleave mid-line; a line longer than `maxLine` characters is cut there (the rest of it dropped, said
 * with `…`), so a child writing without newlines holds at most that much. Control characters are escaped
 * (printable.ts): a carriage return cannot write over the prefix.
 * @module
 */
import { StringDecoder } from 'node:string_decoder';
import { Transform, type TransformCallback } from 'node:stream';
import { printable } from './printable.js';

/** The longest line passed through, in characters; the rest of a longer one is dropped. */
export const MAX_UPSTREAM_STDERR_LINE = 4_096;

/** A stream that turns text into `${prefix}line\n`s. */
export function prefixedLines(prefix: string, maxLine = MAX_UPSTREAM_STDERR_LINE): Transform {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  /** The current line was cut: its rest is dropped up to the next newline. */
  let cut = false;
  const line = (text: string) => `${prefix}${printable(text)}\n`;
  return new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback) {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let out = '';
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        const piece = text.slice(start, newline === -1 ? text.length : newline);
        if (!cut) {
          partial += piece;
          if (partial.length > maxLine) {
            out += line(`${partial.slice(0, maxLine)}…`);
            partial = '';
            cut = true;
          }
        }
        if (newline === -1) break;
        if (!cut) out += line(partial.replace(/\r$/, ''));
        partial = '';
        cut = false;
        start = newline + 1;
      }
      done(null, out === '' ? undefined : out);
    },
    flush(done: TransformCallback) {
      const rest = cut ? '' : partial + decoder.end();
      done(null, rest === '' ? undefined : line(rest));
    },
  });
}

/** What may wait unwritten on the gateway's stderr before an upstream's lines are dropped, in bytes. */
const MAX_UNWRITTEN = 1024 * 1024;

/**
 * Passes `source` (an upstream's stderr) through to this process's stderr, each line prefixed; lines are
 * dropped while 1 MiB waits unwritten (a host that does not read the gateway's stderr), as the gateway's
 * own log lines are.
 */
export function passStderrThrough(source: NodeJS.ReadableStream, prefix: string): void {
  const lines = prefixedLines(prefix);
  lines.on('data', (text: string | Buffer) => {
    if (process.stderr.writableLength < MAX_UNWRITTEN) process.stderr.write(text);
  });
  source.pipe(lines);
}
