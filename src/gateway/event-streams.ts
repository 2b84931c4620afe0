/**
 * The decision API's event streams (`GET /api/events`): server-sent events of what the gateway does, after
 * a `snapshot` of the pending approvals (as listed: listed-approval.ts) and upstreams, kept alive by a `ping`
 * event every `KEEP_ALIVE_MS` (a real event, which a browser's EventSource hands to the page, so that a page
 * can tell a dead link by the silence), and ended for a reader that falls too far behind: more than
 * `MAX_QUEUED_EVENTS` events or `MAX_QUEUED_BYTES` bytes (beyond the snapshot) it has not taken. Its queue is
 * dropped at once and its stream errs, so that the server ends the connection (node:http: the response is
 * destroyed); its slot counts until the connection has closed. `close` (the API stops) ends every stream
 * after what is queued.
 *
 * A stream lasts only as long as its credentials: it ends, its queue dropped, when its console session ends
 * (signed out, through this instance or another sharing the stores: `EndedSessions.onEnded`), when its
 * credentials expire (the cookie's 12 hours, a principal's `expiresAt`), and when they no longer hold at a
 * keep-alive (`StreamOwner.stillValid`: an ended session the bus did not bring, a token the verifier now
 * refuses).
 *
 * Slots: `maxEventStreams` in all (16), at most `maxEventStreamsPerCaller` (4) for one caller — a console
 * session (all the tabs of one browser) or a bearer principal — answered 429 beyond; and a quarter of the
 * slots (rounded up) is kept for deciders: watchers together may hold the rest (503 beyond), so that no
 * watcher, script or pile of tabs leaves the approvers without live news.
 * @module
 */
import { failure } from './api-json.js';
import type { GatewayEvent } from './gateway-events.js';
import type { Gateway } from './gateway.js';
import { APPROVALS_PAGE_SIZE, approvalsListing, streamedEvent } from './approvals-listing.js';
import type { PendingListing } from '../stores/approval-store.js';

/** How often an open stream gets a `ping` event (and its credentials are checked again). */
export const KEEP_ALIVE_MS = 15_000;
/** The streams open at once, by default; more get 503. */
export const MAX_EVENT_STREAMS = 16;
/** The streams one caller (a console session, a bearer principal) may hold at once, by default; more get 429. */
export const MAX_EVENT_STREAMS_PER_CALLER = 4;
/** The longest a timer waits (setTimeout's limit); a later expiry is caught by a keep-alive's check. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Events queued for a reader that does not read: past this, its stream is ended. */
const MAX_QUEUED_EVENTS = 1_000;
/** Bytes queued for a reader that does not read (beyond the snapshot): past this, its stream is ended. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** Whose event stream it is: what the slots count, and how long the stream may last. */
export interface StreamOwner {
  /** The caller the per-caller cap counts: one per console session, one per bearer principal. */
  key: string;
  /** Whether the caller may decide (deciders may use the slots kept from watchers). */
  canDecide: boolean;
  /** The console session (a cookie's): the stream ends when it is ended, on any instance. */
  sessionId?: string;
  /** When the credentials expire (ms since the epoch): the stream ends then. */
  expiresAt?: number;
  /** Whether the credentials still hold, asked at each keep-alive: false, or a failure, ends the stream. */
  stillValid: () => Promise<boolean>;
}

/** An open stream's slot: whose it is, and how it ends (`flush`: after what is queued; else cut now). */
interface Slot {
  owner: StreamOwner;
  end: (flush: boolean) => void;
}

export class EventStreams {
  readonly #gateway: Gateway;
  /** The decision API's options: the streams open at once, and per caller. */
  readonly #options: { maxEventStreams?: number; maxEventStreamsPerCaller?: number };
  readonly #streams = new Set<Slot>();
  /** Stops hearing of ended sessions (while streams are open). */
  #unlisten: (() => void) | undefined;

  constructor(gateway: Gateway, options: { maxEventStreams?: number; maxEventStreamsPerCaller?: number }) {
    this.#gateway = gateway;
    this.#options = options;
  }

  /** Why `owner` may not open a stream now (the refusal), or undefined when a slot is free for it. */
  #refusal(owner: StreamOwner): Response | undefined {
    const max = this.#options.maxEventStreams ?? MAX_EVENT_STREAMS;
    const perCaller = this.#options.maxEventStreamsPerCaller ?? MAX_EVENT_STREAMS_PER_CALLER;
    let mine = 0;
    let watching = 0;
    for (const { owner: other } of this.#streams) {
      if (other.key === owner.key) mine++;
      if (!other.canDecide) watching++;
    }
    if (mine >= perCaller) {
      return failure(
        429,
        'TOO_MANY_STREAMS_PER_CALLER',
        `You have ${mine} event streams open, as many as one caller may (${perCaller}); close one and retry`,
      );
    }
    if (this.#streams.size >= max) {
      return failure(503, 'TOO_MANY_STREAMS', 'Too many event streams are open; close one and retry');
    }
    // A quarter of the slots (rounded up) is kept for deciders.
    if (!owner.canDecide && watching >= max - Math.ceil(max / 4)) {
      return failure(
        503,
        'TOO_MANY_STREAMS',
        'Too many event streams of watchers are open (the other slots are kept for deciders); close one and retry',
      );
    }
    return undefined;
  }

  /**
   * The event stream of `owner`: a snapshot of the pending approvals (from the store, shared by every
   * instance) and upstreams, then the events. Listening starts before the snapshot is read, and what comes
   * meanwhile follows it, so that nothing falls between them.
   */
  async open(request: Request, owner: StreamOwner): Promise<Response> {
    const refused = this.#refusal(owner);
    if (refused) return refused;
    // The slot is taken now (a stream opened meanwhile counts it), and held until the connection closes.
    // Until the stream is built, an end of its credentials (the session ended meanwhile) is remembered.
    let endedEarly = false;
    let end = (flush: boolean) => {
      endedEarly ||= !flush;
    };
    const slot: Slot = { owner, end: (flush) => end(flush) };
    this.#streams.add(slot);
    this.#unlisten ??= this.#gateway.approvals.endedSessions.onEnded((sessionId) => {
      for (const open of [...this.#streams]) if (open.owner.sessionId === sessionId) open.end(false);
    });
    const early: GatewayEvent[] = [];
    let forward: ((event: GatewayEvent) => void) | undefined;
    const unsubscribe = this.#gateway.on((event) => {
      if (forward) forward(event);
      else if (early.length < MAX_QUEUED_EVENTS) early.push(event);
    });
    let approvals: PendingListing;
    try {
      approvals = await this.#gateway.approvals.listPending({ limit: APPROVALS_PAGE_SIZE });
    } catch (error) {
      unsubscribe();
      this.#free(slot);
      throw error;
    }
    const encoder = new TextEncoder();
    // What the reader has not taken yet, bounded by events and by bytes (beyond the snapshot's).
    const queued: Uint8Array[] = [];
    let queuedBytes = 0;
    let byteLimit = MAX_QUEUED_BYTES;
    let waiting: ((chunk: Uint8Array) => void) | undefined;
    let release = () => {};
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          /** Queues a chunk; false once the reader has fallen too far behind. */
          const put = (chunk: Uint8Array): boolean => {
            if (waiting) {
              const give = waiting;
              waiting = undefined;
              give(chunk);
              return true;
            }
            queued.push(chunk);
            queuedBytes += chunk.byteLength;
            return queued.length <= MAX_QUEUED_EVENTS && queuedBytes <= byteLimit;
          };
          const send = (event: string, data: unknown) =>
            put(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
          // A reader whose stream broke (a gateway restart) tries again after a second, not the browser's default 3 s.
          put(encoder.encode('retry: 1000\n\n'));
          const snapshot = encoder.encode(
            `event: snapshot\ndata: ${JSON.stringify({ ...approvalsListing(approvals), upstreams: this.#gateway.upstreams() })}\n\n`,
          );
          byteLimit += snapshot.byteLength;
          put(snapshot);
          let fine = true;
          for (const event of early.splice(0)) fine &&= send(event.type, streamedEvent(event));
          let live = true;
          const keepAlive = setInterval(() => {
            if (!put(encoder.encode('event: ping\ndata: {}\n\n'))) return overflow();
            // The credentials are asked again: an ended session the bus did not bring, a refused token.
            if (owner.expiresAt !== undefined && owner.expiresAt <= Date.now()) return end(false);
            owner.stillValid().then(
              (valid) => valid || end(false),
              () => end(false),
            );
          }, KEEP_ALIVE_MS);
          keepAlive.unref?.();
          // The stream ends when its credentials expire. A timer may fire before the clock says so (timers
          // run on a monotonic clock, Date.now() on the wall clock, which may step back): it is armed again
          // for what is left, as it is after MAX_TIMER_MS.
          let expiry: ReturnType<typeof setTimeout> | undefined;
          const expireAt = (at: number) => {
            expiry = setTimeout(
              () => (at <= Date.now() ? end(false) : expireAt(at)),
              Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS),
            );
            expiry.unref?.();
          };
          if (owner.expiresAt !== undefined) expireAt(owner.expiresAt);
          /** Stops sending; the slot is kept until the connection has closed. */
          const stop = () => {
            if (!live) return false;
            live = false;
            unsubscribe();
            clearInterval(keepAlive);
            clearTimeout(expiry);
            return true;
          };
          // Fallen too far behind: what waits for it is dropped now, and its connection is ended (the
          // stream errs, and the server destroys the response).
          const overflow = () => {
            if (!stop()) return;
            queued.length = 0;
            queuedBytes = 0;
            controller.error(new Error('the event stream fell too far behind'));
          };
          forward = (event) => {
            if (live && !send(event.type, streamedEvent(event))) overflow();
          };
          // The connection closed (or the reader cancelled): its slot is free.
          release = () => {
            stop();
            queued.length = 0;
            queuedBytes = 0;
            request.signal.removeEventListener('abort', release);
            this.#free(slot);
          };
          end = (flush) => {
            // The API stops: what is queued still goes, then the stream ends. Its credentials ended: what is
            // queued is dropped (nothing more reaches them), and the stream ends.
            if (stop()) {
              if (!flush) {
                queued.length = 0;
                queuedBytes = 0;
              }
              try {
                for (const chunk of queued.splice(0)) controller.enqueue(chunk);
                controller.close();
              } catch {
                // already closed or errored
              }
            }
            release();
          };
          request.signal.addEventListener('abort', release, { once: true });
          if (request.signal.aborted) release();
          if (!fine) overflow();
          if (endedEarly) end(false);
        },
        pull: (controller) => {
          const chunk = queued.shift();
          if (chunk !== undefined) {
            queuedBytes -= chunk.byteLength;
            controller.enqueue(chunk);
            return;
          }
          return new Promise<void>((resolve) => {
            waiting = (next) => {
              controller.enqueue(next);
              resolve();
            };
          });
        },
        cancel: () => release(),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  }

  /** A stream's slot is free; with none open, ended sessions are no longer listened to. */
  #free(slot: Slot): void {
    this.#streams.delete(slot);
    if (this.#streams.size === 0) {
      this.#unlisten?.();
      this.#unlisten = undefined;
    }
  }

  /** Ends every event stream (after what is queued). */
  close(): void {
    for (const slot of [...this.#streams]) slot.end(true);
  }
}
