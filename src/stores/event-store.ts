/**
 * Where a Streamable HTTP server keeps the SSE events it sent, so a client that lost a stream can resume
 * it with `Last-Event-ID`. Event ids name their stream (`<streamId>.<seq>`), as 2025-11-25 recommends.
 * @module
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

export interface StoredEvent {
  id: string;
  message: JsonRpcMessage;
}

interface Slot {
  id: string;
  seq: number;
  /**
   * The message's JSON, or (given no text) the message itself; null for a priming event. Text where it can:
   * one flat string per event, where a message's objects (kept for the last 10,000 streams) are what the
   * garbage collector copies into the old generation and marks there.
   */
  message: string | JsonRpcMessage | null;
}

export interface EventStore {
  /**
   * Records a message sent on `streamId` and returns its event id. `null` records a priming event: it has
   * an id a client can resume from, and is never replayed. `text`, when given, is the message's JSON as it
   * is sent: a store may keep it instead of the message (and replay its parse).
   */
  append(streamId: string, message: JsonRpcMessage | null, text?: string): Promise<string> | string;
  /**
   * The stream an event id belongs to and the events after it, in order; undefined when the id is unknown
   * (expired or never issued).
   */
  replayAfter(
    eventId: string,
  ):
    | Promise<{ streamId: string; events: StoredEvent[] } | undefined>
    | { streamId: string; events: StoredEvent[] }
    | undefined;
  /** Forgets a stream (its session ended). */
  deleteStream(streamId: string): Promise<void> | void;
}

export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped (default 1000). */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written is dropped first (default 10,000). */
  maxStreams?: number;
}

/** A bounded in-memory event store: the default for a single process. */
export class MemoryEventStore implements EventStore {
  readonly #streams = new Map<string, { seq: number; events: Slot[] }>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#maxStreams = options.maxStreams ?? 10_000;
  }

  get streamCount(): number {
    return this.#streams.size;
  }

  append(streamId: string, message: JsonRpcMessage | null, text?: string): string {
    let stream = this.#streams.get(streamId);
    if (stream) {
      this.#streams.delete(streamId); // re-insert: most recently written last
    } else {
      stream = { seq: 0, events: [] };
      if (this.#streams.size >= this.#maxStreams) {
        const oldest = this.#streams.keys().next().value;
        if (oldest !== undefined) this.#streams.delete(oldest);
      }
    }
    this.#streams.set(streamId, stream);
    const seq = ++stream.seq;
    const id = `${streamId}.${seq}`;
    stream.events.push({ id, seq, message: message === null ? null : (text ?? message) });
    if (stream.events.length > this.#maxEvents) stream.events.shift();
    return id;
  }

  replayAfter(eventId: string): { streamId: string; events: StoredEvent[] } | undefined {
    const dot = eventId.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const streamId = eventId.slice(0, dot);
    const digits = eventId.slice(dot + 1);
    // Digits only: Number() would also read '' (0), ' 1', '0x1' and '1e0'.
    if (!/^\d{1,15}$/.test(digits)) return undefined;
    const seq = Number(digits);
    const stream = this.#streams.get(streamId);
    if (!stream || seq > stream.seq) return undefined;
    const events: StoredEvent[] = [];
    for (const slot of stream.events) {
      if (slot.seq <= seq || slot.message === null) continue;
      const { message } = slot;
      events.push({ id: slot.id, message: typeof message === 'string' ? parseStored(message) : message });
    }
    return { streamId, events };
  }

  deleteStream(streamId: string): void {
    this.#streams.delete(streamId);
  }
}

/** A kept message's JSON, parsed again for a replay (it is the text this process sent). */
function parseStored(text: string): JsonRpcMessage {
  return JSON.parse(text) as JsonRpcMessage;
}
