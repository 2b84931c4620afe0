/**
 * The POSTs of an HTTP client transport waiting for the server to take them, each with its own
 * cancellation, so that a server holding them costs no connection per call: a POST is dropped once the
 * client gave up on every request it carries (the engine sends `notifications/cancelled` for each), or, when
 * it carries none (notifications, answers to the server's requests), once the server has not accepted it
 * within {@link NOTICE_TIMEOUT_MS} of when it was asked for (its wait in line included). Only {@link MAX_NOTICES_WAITING} of those are sent at once; the others
 * wait in line for a free one, in order ({@link NoticeLine}: at most {@link MAX_NOTICES_QUEUED} of them and
 * {@link MAX_QUEUED_NOTICE_BYTES}). An answer the line has no room for becomes a small error answer
 * (-32603) saying so, so the server's request does not hang; a notification is refused. The legacy
 * HTTP+SSE transport holds all its POSTs here (their answers come on its SSE stream). While as many wait as
 * may be sent at once, they are {@link WaitingPosts.full}: the transport's `backlog`, so the engine starts
 * no more of the server's requests and the transport stops reading until one of them is accepted. (Not
 * until half are: a server that accepts none until it holds all 64, which it may, waited with the client
 * once the answers still waiting in line had taken the first slots freed, until they were dropped.)
 * @module
 */
import { CancellationSource, type Cancellation } from '../../protocol/engine/cancellation.js';
import { ErrorCode, LocalErrorCode } from '../../protocol/errors.js';
import type { JsonRpcMessage, RequestId } from '../../protocol/jsonrpc.js';
import type { OutputBacklog } from '../../protocol/transport.js';
import { stringifyJson } from '../../protocol/json-text.js';
import { TransportError } from '../transport-error.js';
import { MAX_NOTICES_QUEUED, MAX_QUEUED_NOTICE_BYTES, NoticeLine } from './notice-line.js';

export { MAX_NOTICES_QUEUED, MAX_QUEUED_NOTICE_BYTES } from './notice-line.js';

/** How long the server may take to accept (202) a POST of no request: notifications, answers to its requests. */
export const NOTICE_TIMEOUT_MS = 30_000;

/** The most POSTs of no request sent and waiting for the server to accept them; more wait in line. */
export const MAX_NOTICES_WAITING = 64;

/** Why a POST of no request is dropped at {@link NOTICE_TIMEOUT_MS}. */
const UNACCEPTED = `the server did not accept it within ${NOTICE_TIMEOUT_MS} ms (at most ${MAX_NOTICES_WAITING} POSTs of notifications or answers wait for the server at once: one that accepts none until it holds more is never sent them)`;

/** One POST waiting: what cancels it, and the requests it carries that the client still awaits. */
export interface WaitingPost {
  readonly cancellation: Cancellation;
  readonly pending: Set<RequestId>;
}

/** A POST of no request given its slot: the body to send, and why the message itself is not it. */
export interface NoticePost {
  readonly post: WaitingPost;
  /** The JSON text to POST: the message's, or the error answer that replaces it. */
  readonly body: string;
  /** The answer was replaced by an error answer (there was no room for it in line): to throw once sent. */
  readonly dropped?: TransportError;
}

interface Entry extends WaitingPost {
  readonly cancellation: CancellationSource;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class WaitingPosts {
  readonly #byRequest = new Map<RequestId, Entry>();
  readonly #live = new Set<Entry>();
  readonly #line = new NoticeLine<Entry>(
    () =>
      new TransportError(
        LocalErrorCode.SendFailed,
        `POST not sent: it waited ${NOTICE_TIMEOUT_MS} ms in line and none of the ${MAX_NOTICES_WAITING} POSTs before it was accepted by the server`,
      ),
  );
  #notices = 0;
  #full = false;
  readonly #onDrain: (() => void) | undefined;
  /** What waits, as the transport's `backlog` shows it to the engine: {@link queuedBytes} and {@link full}. */
  readonly backlog: OutputBacklog;

  /** `onDrain`: called when the POSTs of no request are no longer {@link full}. */
  constructor(onDrain?: () => void) {
    this.#onDrain = onDrain;
    const bytes = () => this.queuedBytes;
    const full = () => this.#full;
    this.backlog = {
      get bytes() {
        return bytes();
      },
      maxBytes: MAX_QUEUED_NOTICE_BYTES,
      get full() {
        return full();
      },
    };
  }

  /**
   * As many POSTs of no request wait as may be sent at once ({@link MAX_NOTICES_WAITING}, those sent and
   * those in line together), or those in line hold half their bytes: the client's engine starts no more of
   * the server's requests (their answers would only wait in line) and its transport reads no more until one
   * of the slots is free with no one in line for it (`onDrain`). Free at once, not at half: the server may
   * be one that accepts none until it holds all the client may send.
   */
  get full(): boolean {
    return this.#full;
  }

  /** Characters of JSON the POSTs waiting in line for a slot hold. */
  get queuedBytes(): number {
    return this.#line.bytes;
  }

  #pressure(): void {
    // Fewer than all the slots waiting means no one is in line: the line holds no bytes then.
    const full =
      this.#notices + this.#line.size >= MAX_NOTICES_WAITING ||
      this.#line.bytes >= MAX_QUEUED_NOTICE_BYTES / 2;
    if (full === this.#full) return;
    this.#full = full;
    if (!full) this.#onDrain?.();
  }

  /** A POST about to be sent, carrying `requestIds` (at least one); `done` it once the server answered it. */
  open(requestIds: readonly RequestId[]): WaitingPost {
    return this.#open(requestIds);
  }

  /**
   * A POST of `message`, which carries no request (notifications, answers to the server's requests), to
   * `url`: resolves once one of the {@link MAX_NOTICES_WAITING} slots is its own (`done` it once the server
   * accepted it), in the order asked. When the line has no room for it, an answer is replaced by an error
   * answer saying so (see {@link NoticePost.dropped}), and anything else rejects at once with a
   * `SEND_FAILED` TransportError; it rejects with `reason` when the transport closes while it waits.
   */
  async openNotice(url: URL, message: JsonRpcMessage | JsonRpcMessage[]): Promise<NoticePost> {
    let body = stringifyJson(message);
    if (this.#notices < MAX_NOTICES_WAITING && this.#line.size === 0) {
      const post = this.#open([]);
      this.#pressure();
      return { post, body };
    }
    let dropped: TransportError | undefined;
    if (!this.#line.fits(body.length)) {
      const full = `${MAX_NOTICES_WAITING} POSTs of notifications or answers wait for the server to accept them, and ${this.#line.size} more (${this.#line.bytes} bytes of JSON) wait in line for one (at most ${MAX_NOTICES_QUEUED} and ${MAX_QUEUED_NOTICE_BYTES} bytes)`;
      const id = answerId(message);
      const replaced = id === undefined ? undefined : JSON.stringify(droppedAnswer(id, body.length, full));
      if (replaced === undefined || !this.#line.fits(replaced.length)) {
        throw new TransportError(LocalErrorCode.SendFailed, `POST ${url.href} not sent: ${full}`);
      }
      dropped = new TransportError(
        LocalErrorCode.SendFailed,
        `The answer to request ${String(id)} (${body.length} bytes) was not sent: ${full}; the server was sent a -32603 error answer instead`,
      );
      body = replaced;
    }
    const waiting = this.#line.wait(body.length, performance.now() + NOTICE_TIMEOUT_MS);
    this.#pressure();
    let post: Entry;
    try {
      post = await waiting;
    } catch (error) {
      this.#pressure(); // its deadline passed in line: the line is shorter
      throw error;
    }
    return dropped ? { post, body, dropped } : { post, body };
  }

  /** `deadline` (`performance.now()` time), for a POST of no request: when it is dropped unaccepted. */
  #open(requestIds: readonly RequestId[], deadline = performance.now() + NOTICE_TIMEOUT_MS): Entry {
    const notice = requestIds.length === 0;
    const entry: Entry = {
      cancellation: new CancellationSource(),
      pending: new Set(requestIds),
      timer: undefined,
    };
    for (const id of requestIds) this.#byRequest.set(id, entry);
    this.#live.add(entry);
    if (notice) {
      this.#notices += 1;
      const reason = new Error(UNACCEPTED);
      const ms = Math.max(0, deadline - performance.now());
      entry.timer = setTimeout(() => entry.cancellation.abort(reason), ms);
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
      // The slot is the next one's in line at once: one asking now cannot take it first.
      if (this.#line.size > 0) this.#line.next((deadline) => this.#open([], deadline));
      this.#pressure();
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

  /** The transport closed: every POST waiting is dropped, and every one waiting in line. */
  clear(reason: unknown): void {
    this.#line.clear(reason);
    for (const entry of [...this.#live]) {
      this.done(entry);
      entry.cancellation.abort(reason);
    }
    this.#byRequest.clear();
  }
}

/** The id of a lone answer (a result or an error to a request of the server's), else undefined. */
function answerId(message: JsonRpcMessage | JsonRpcMessage[]): RequestId | undefined {
  if (Array.isArray(message) || !('result' in message || 'error' in message)) return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The error answer that replaces an answer of `bytes` the line had no room for. */
function droppedAnswer(id: RequestId, bytes: number, full: string): JsonRpcMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InternalError,
      message: `Internal error: the client's answer (${bytes} bytes) was dropped: ${full}`,
    },
  };
}
