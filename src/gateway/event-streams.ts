/**
 * The decision API's event streams (`GET /api/events`): server-sent events of what the gateway does, after
 * a `snapshot` of the pending approvals (as listed: listed-approval.ts) and upstreams, kept alive by comments, at most so many open at once,
 * and ended for a reader that falls too far behind: more than `MAX_QUEUED_EVENTS` events or
 * `MAX_QUEUED_BYTES` bytes (beyond the snapshot) it has not taken. Its queue is dropped at once and its stream
 * errs, so that the server ends the connection (node:http: the response is destroyed); its slot counts until
 * the connection has closed. `close` (the API stops) ends every stream after what is queued.
 * @module
 */
import { failure } from './api-json.js';
import type { PendingApproval } from './approvals.js';
import type { GatewayEvent } from './gateway-events.js';
import type { Gateway } from './gateway.js';
import { listedApproval, streamedEvent } from './listed-approval.js';

const KEEP_ALIVE_MS = 15_000;
/** Events queued for a reader that does not read: past this, its stream is ended. */
const MAX_QUEUED_EVENTS = 1_000;
/** Bytes queued for a reader that does not read (beyond the snapshot): past this, its stream is ended. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export class EventStreams {
  readonly #gateway: Gateway;
  /** The decision API's options: `maxEventStreams`, the streams open at once (default 16; more get 503). */
  readonly #options: { maxEventStreams?: number };
  readonly #streams = new Set<() => void>();

  constructor(gateway: Gateway, options: { maxEventStreams?: number }) {
    this.#gateway = gateway;
    this.#options = options;
  }

  /**
   * The event stream: a snapshot of the pending approvals (from the store, shared by every instance) and
   * upstreams, then the events. Listening starts before the snapshot is read, and what comes meanwhile
   * follows it, so that nothing falls between them.
   */
  async open(request: Request): Promise<Response> {
    if (this.#streams.size >= (this.#options.maxEventStreams ?? 16)) {
      return failure(503, 'TOO_MANY_STREAMS', 'Too many event streams are open; close one and retry');
    }
    // The slot is taken now (a stream opened meanwhile counts it), and held until the connection closes.
    let end = () => {};
    const slot = () => end();
    this.#streams.add(slot);
    const early: GatewayEvent[] = [];
    let forward: ((event: GatewayEvent) => void) | undefined;
    const unsubscribe = this.#gateway.on((event) => {
      if (forward) forward(event);
      else if (early.length < MAX_QUEUED_EVENTS) early.push(event);
    });
    let approvals: PendingApproval[];
    try {
      approvals = await this.#gateway.approvals.pending();
    } catch (error) {
      unsubscribe();
      this.#streams.delete(slot);
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
            `event: snapshot\ndata: ${JSON.stringify({ approvals: approvals.map(listedApproval), upstreams: this.#gateway.upstreams() })}\n\n`,
          );
          byteLimit += snapshot.byteLength;
          put(snapshot);
          let fine = true;
          for (const event of early.splice(0)) fine &&= send(event.type, streamedEvent(event));
          let live = true;
          const keepAlive = setInterval(() => {
            if (!put(encoder.encode(': keep-alive\n\n'))) overflow();
          }, KEEP_ALIVE_MS);
          keepAlive.unref?.();
          /** Stops sending; the slot is kept until the connection has closed. */
          const stop = () => {
            if (!live) return false;
            live = false;
            unsubscribe();
            clearInterval(keepAlive);
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
            this.#streams.delete(slot);
          };
          end = () => {
            // The API stops: what is queued still goes, then the stream ends.
            if (stop()) {
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

  /** Ends every event stream. */
  close(): void {
    for (const end of [...this.#streams]) end();
  }
}
