/**
 * A Lua script the Redis stores run atomically on the server: sent by its SHA-1 (`EVALSHA`), and in
 * full (`EVAL`, which caches it again) when the server does not know it, as after a Redis restart.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with `keys` (KEYS) and `args` (ARGV); resolves with its reply. */
  async run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}

/** The replies of a `MULTI … EXEC`, throwing the first command's error (or the transaction's abort). */
export function execReplies(replies: [error: Error | null, reply: unknown][] | null): unknown[] {
  if (!replies) throw new Error('the transaction was aborted');
  return replies.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
