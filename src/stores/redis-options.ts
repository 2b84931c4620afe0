/**
 * What every Redis store is given besides its connection: the prefix of its keys.
 * @module
 */

export interface RedisStoreOptions {
  /**
   * Prefix of every key the store writes (default `toolwire:`): processes that share a Redis database
   * share the data of the same prefix, and keep apart with different ones.
   */
  prefix?: string;
}

export const DEFAULT_REDIS_PREFIX = 'toolwire:';

export function prefixOf(options: RedisStoreOptions): string {
  return options.prefix ?? DEFAULT_REDIS_PREFIX;
}

/** `value` when it is a positive safe integer; else a TypeError naming the option. */
export function positiveOption(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}
