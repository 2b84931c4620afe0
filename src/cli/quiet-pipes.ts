/**
 * A reader that goes away early must not crash the command: `npx toolwire tools … | head -c 10` closes
 * the pipe while toolwire still writes, and Node then emits EPIPE as an `error` event on `process.stdout`,
 * which, unhandled, kills the process with a stack trace. Once a stream's reader is gone, whatever else is
 * written to it is dropped: the command finishes as it would have (closing its connection, stopping the
 * server it started) and exits with its own code, silently.
 * @module
 */

/** Errors that mean the reader of the pipe is gone (or the stream was torn down after that). */
const READER_GONE: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

const guarded = new WeakSet<NodeJS.WritableStream>();

/** Drops writes to `stream` once its reader is gone, instead of crashing; other errors are rethrown. */
export function quietWhenReaderGone(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && READER_GONE.has(error.code)) return;
    throw error;
  });
}

/** Guards stdout and stderr (see {@link quietWhenReaderGone}). */
export function quietPipes(): void {
  quietWhenReaderGone(process.stdout);
  quietWhenReaderGone(process.stderr);
}
