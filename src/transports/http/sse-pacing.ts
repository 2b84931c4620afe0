/**
 * How writers that can wait are paced to the client's reading: which messages may wait for room on their
 * stream (a tool's progress and log notifications), how much a stream holds unread before they do (see
 * `SseSink.room`), and the later turn of the event loop a loop of them yields to.
 * @module
 */

import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';

/** Unread events on one stream past which writers that can wait do (see `SseSink.room`) … */
export const PACED_MESSAGES = 64;
/** … and unread bytes. */
export const PACED_BYTES = 64 * 1024;

/** Runs `fn` in a later turn of the event loop, after pending I/O (setImmediate where there is one). */
export const later: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/**
 * For a paced message (see `pacedByReader`) on a stream with no live sink (its client went away and may
 * resume; the event store keeps a bounded replay): a later turn of the event loop every `PACED_MESSAGES`
 * (`count`: how many went so far), so that a tool's loop of them yields to other work.
 */
export function pacedWithoutSink(count: number): Promise<void> | undefined {
  if (count % PACED_MESSAGES !== 0) return undefined;
  return new Promise<void>((resolve) => later(resolve));
}

/**
 * Whether a message's sender may wait for room on its stream (`SseSink.room`): a tool's progress and log
 * notifications, which `ctx.progress` and `ctx.log` send and await. Answers never wait, nor do other
 * notifications (their senders do not expect to).
 */
export function pacedByReader(message: JsonRpcMessage): boolean {
  return (
    'method' in message &&
    !('id' in message) &&
    (message.method === 'notifications/progress' || message.method === 'notifications/message')
  );
}
