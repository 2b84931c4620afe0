/**
 * The decision API's event streams (`GET /api/events`): server-sent events of what the gateway does, after
 * a `snapshot` of the pending approvals and upstreams, kept alive by comments, at most so many open at once,
 * and closed for a reader that falls too far behind (or by `close`, when the API stops).
 * @module
 */
import { failure } from './api-json.js';
import type { PendingApproval } from './approvals.js';
import type { GatewayEvent } from './gateway-events.js';
import type { Gateway } from './gateway.js';

const KEEP_ALIVE_MS = 15_000;
/** Events queued for a reader that does not read: past this, its stream is closed. */
const MAX_QUEUED_EVENTS = 1_000;

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
      throw error;
    }
    const encoder = new TextEncoder();
    let end = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (event: string, data: unknown) =>
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        // A reader whose stream broke (a gateway restart) tries again after a second, not the browser's default 3 s.
        controller.enqueue(encoder.encode('retry: 1000\n\n'));
        send('snapshot', { approvals, upstreams: this.#gateway.upstreams() });
        for (const event of early.splice(0)) send(event.type, event);
        forward = (event) => {
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_EVENTS) end();
          else send(event.type, event);
        };
        const keepAlive = setInterval(
          () => controller.enqueue(encoder.encode(': keep-alive\n\n')),
          KEEP_ALIVE_MS,
        );
        keepAlive.unref?.();
        end = () => {
          if (!this.#streams.delete(end)) return;
          unsubscribe();
          clearInterval(keepAlive);
          request.signal.removeEventListener('abort', end);
          try {
            controller.close();
          } catch {
            // already closed by the reader
          }
        };
        this.#streams.add(end);
        request.signal.addEventListener('abort', end, { once: true });
      },
      cancel: () => end(),
    });
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
