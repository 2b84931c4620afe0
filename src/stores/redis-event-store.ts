/**
 * SSE events in Redis Streams, so that a stream can be resumed with `Last-Event-ID` from any process
 * sharing the store: one Redis stream per SSE stream (`<prefix>events:<streamId>`), trimmed to the last
 * `maxEventsPerStream` entries as it grows (`XADD … MAXLEN`), and dropped `ttlMs` after it was last
 * written or resumed. An event id is `<streamId>.<entry id>`, the Redis entry id (`<ms>-<seq>`) in place
 * of the memory store's counter: ids still name their stream and still grow. At most `maxStreams` streams
 * are kept, as in memory: an index of the stream ids by when they were last written
 * (`<prefix>event-streams`, a sorted set on the Redis clock, in µs) drops the least recently written, stream and
 * all, past them; so the finished streams of sessions whose copies were unloaded (each copy deletes its
 * streams past the last 32 only while it is loaded) do not pile up until their TTL.
 * @module
 */
import type { Redis } from 'ioredis';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { APPEND } from './redis-event-scripts.js';
import { execReplies } from './redis-script.js';
import { redisOperation } from './redis-operation.js';

export interface RedisEventStoreOptions extends RedisStoreOptions {
  /** Events kept per stream; older ones are trimmed (default 1000). */
  maxEventsPerStream?: number;
  /**
   * How long a stream is kept after it was last written or resumed, in ms (default 24 hours): streams
   * whose session ended are deleted at once; this bounds the ones nobody deletes (their process died).
   */
  ttlMs?: number;
  /**
   * Streams kept, of every process sharing the store; past them the least recently written goes (default
   * 100,000).
   */
  maxStreams?: number;
}

export const DEFAULT_EVENT_TTL_MS = 24 * 60 * 60_000;
export const DEFAULT_REDIS_MAX_EVENT_STREAMS = 100_000;

const NAME = 'Redis event store';
/** A Redis stream entry id. */
const ENTRY_ID = /^(\d{1,20})-(\d{1,20})$/;

/** Entry ids in order: -1, 0 or 1. */
function compareEntryIds(a: RegExpExecArray, b: RegExpExecArray): number {
  const [msA, msB] = [BigInt(a[1]!), BigInt(b[1]!)];
  if (msA !== msB) return msA < msB ? -1 : 1;
  const [seqA, seqB] = [BigInt(a[2]!), BigInt(b[2]!)];
  return seqA === seqB ? 0 : seqA < seqB ? -1 : 1;
}

export class RedisEventStore implements EventStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #index: string;
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #ttlMs: number;

  constructor(client: Redis, options: RedisEventStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}events:`;
    this.#index = `${prefixOf(options)}event-streams`;
    this.#maxEvents = positiveOption(options.maxEventsPerStream ?? 1000, 'maxEventsPerStream');
    this.#ttlMs = positiveOption(options.ttlMs ?? DEFAULT_EVENT_TTL_MS, 'ttlMs');
    this.#maxStreams = positiveOption(options.maxStreams ?? DEFAULT_REDIS_MAX_EVENT_STREAMS, 'maxStreams');
  }

  append(streamId: string, message: JsonRpcMessage | null, text?: string): Promise<string> {
    const key = this.#prefix + streamId;
    // A priming event (null) is an entry with an empty message: it has an id, and is never replayed.
    const data = message === null ? '' : (text ?? JSON.stringify(message));
    return redisOperation(this.#client, NAME, 'append', async () => {
      const entryId = await APPEND.run(
        this.#client,
        [key, this.#index],
        [data, this.#maxEvents, this.#ttlMs, streamId, this.#maxStreams, this.#prefix],
      );
      return `${streamId}.${String(entryId)}`;
    });
  }

  replayAfter(eventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined> {
    const dot = eventId.lastIndexOf('.');
    const after = ENTRY_ID.exec(eventId.slice(dot + 1));
    if (dot <= 0 || !after) return Promise.resolve(undefined);
    const streamId = eventId.slice(0, dot);
    const key = this.#prefix + streamId;
    return redisOperation(this.#client, NAME, 'replayAfter', async () => {
      // The newest entry (an id past it was never issued) and the entries after the one asked for, as
      // one snapshot; resuming keeps the stream another ttl.
      const replies = await this.#client
        .multi()
        .xrevrange(key, '+', '-', 'COUNT', 1)
        .xrange(key, `(${after[0]}`, '+')
        .pexpire(key, this.#ttlMs)
        .exec();
      const [newest] = execReplies(replies?.slice(0, 1) ?? null) as [[string, string[]][]];
      const last = ENTRY_ID.exec(newest[0]?.[0] ?? '');
      // Checked before the range's reply: an id past the last one may be past what XRANGE accepts.
      if (!last || compareEntryIds(after, last) > 0) return undefined;
      const [entries] = execReplies(replies?.slice(1, 2) ?? null) as [[string, string[]][]];
      const events: StoredEvent[] = [];
      for (const [id, fields] of entries) {
        const data = fields[1]; // the one field, m
        if (data) events.push({ id: `${streamId}.${id}`, message: JSON.parse(data) as JsonRpcMessage });
      }
      return { streamId, events };
    });
  }

  async deleteStream(streamId: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'deleteStream', async () =>
      execReplies(
        await this.#client
          .multi()
          .del(this.#prefix + streamId)
          .zrem(this.#index, streamId)
          .exec(),
      ),
    );
  }
}
