/**
 * The Lua scripts of the Redis session store (`RedisSessionStore`): creating a session record under the bound of
 * the index, and updating one.
 * @module
 */
import { RedisScript } from './redis-script.js';

// KEYS: record, index. ARGV: id, lastSeenAt, ttl ms, prune-before, the most records, then the record's
// field/JSON pairs. Returns 0 (nothing written) when the index holds the most records already.
export const CREATE = new RedisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) and not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`);

// KEYS: record, index. ARGV: id, lastSeenAt or '', ttl ms, n, then n field/JSON values, then fields to delete.
export const UPDATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[4])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + n)) end
if #ARGV > 4 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 5 + n)) end
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 1`);
