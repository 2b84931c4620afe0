/**
 * The POSTs of an HTTP client transport waiting for the server to take them, each with its own
 * cancellation, so that a server holding them costs no connection per call: a POST is dropped once the
 * client gave up on every request it carries (the engine sends `notifications/cancelled` for each), or, when
 * it carries none (notifications, answers to the server's requests), once the server has not accepted it
 * within {@link NOTICE_TIMEOUT_MS}; only {@link MAX_NOTICES_WAITING} of those wait at once. The legacy
 * HTTP+SSE transport holds all its POSTs here (their answers come on its SSE stream).
 * @module
 */
import { CancellationSource, type Cancellation } from '../../protocol/engine/cancellation.js';
import { LocalErrorCode } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';

/** How long the server may take to accept (202) a POST of no request: notifications, answers to its requests. */
export const NOTICE_TIMEOUT_MS = 30_000;

/** The most POSTs of no request waiting for the server to accept them; past it `send` refuses at once. */
export const MAX_NOTICES_WAITING = 64;

/** One POST waiting: what cancels it, and the requests it carries that the client still awaits. */
export interface WaitingPost {
  readonly cancellation: Cancellation;
  readonly pending: Set<RequestId>;
}

interface Entry extends WaitingPost {
  readonly cancellation: CancellationSource;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class WaitingPosts {
  readonly #byRequest = new Map<RequestId, Entry>();
  readonly #live = new Set<Entry>();
  #notices = 0;

  /**
   * A POST about to be sent to `url`, carrying `requestIds` (none: a notice); `done` it once the server
   * answered it. Throws a `SEND_FAILED` TransportError when it is a notice and as many wait already.
   */
  open(url: URL, requestIds: readonly RequestId[]): WaitingPost {
    const notice = requestIds.length === 0;
    if (notice && this.#notices >= MAX_NOTICES_WAITING) {
      throw new TransportError(
        LocalErrorCode.SendFailed,
        `POST ${url.href} not sent: ${MAX_NOTICES_WAITING} POSTs of notifications or answers wait for the server to accept them`,
      );
    }
    const entry: Entry = {
      cancellation: new CancellationSource(),
      pending: new Set(requestIds),
      timer: undefined,
    };
    for (const id of requestIds) this.#byRequest.set(id, entry);
    this.#live.add(entry);
    if (notice) {
      this.#notices += 1;
      const reason = new Error(`the server did not accept it within ${NOTICE_TIMEOUT_MS} ms`);
      entry.timer = setTimeout(() => entry.cancellation.abort(reason), NOTICE_TIMEOUT_MS);
      entry.timer.unref?.();
    }
    return entry;
  }

  /** The POST is over (answered, or failed). */
  done(post: WaitingPost): void {
    const entry = post as Entry;
    if (!this.#live.delete(entry)) return;
    if (entry.timer !== undefined) {
      clearTimeout(entry.timer);
      this.#notices -= 1;
    }
    for (const id of entry.pending) if (this.#byRequest.get(id) === entry) this.#byRequest.delete(id);
  }

  /** The client gave up on request `id`: its POST is dropped when it awaits nothing else. */
  giveUp(id: RequestId): void {
    const entry = this.#byRequest.get(id);
    if (!entry) return;
    this.#byRequest.delete(id);
    entry.pending.delete(id);
    if (entry.pending.size === 0) entry.cancellation.abort(new Error(`request ${String(id)} was given up`));
  }

  /** The transport closed: every POST waiting is dropped. */
  clear(reason: unknown): void {
    for (const entry of [...this.#live]) {
      this.done(entry);
      entry.cancellation.abort(reason);
    }
    this.#byRequest.clear();
  }
}
