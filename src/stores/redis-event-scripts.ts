/**
 * The Lua script of the Redis event store (`RedisEventStore`): appending an event to a stream, in the index of
 * streams ordered by when they were written, dropping the oldest streams past the bound.
 * @module
 */
import { RedisScript } from './redis-script.js';

// KEYS: the stream, the index. ARGV: the message's JSON ('' for a priming event), events kept, the TTL (ms),
// the stream id, streams kept, the stream key's prefix. Returns the entry id.
export const APPEND = new RedisScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 'm', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
-- When written, in µs on the Redis clock, after every stream written before (ties would order by name).
local time = redis.call('TIME')
local at = tonumber(time[1]) * 1000000 + tonumber(time[2])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]
if last and at <= tonumber(last) then at = tonumber(last) + 1 end
redis.call('ZADD', KEYS[2], string.format('%d', at), ARGV[4])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, stream in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    if stream ~= ARGV[4] then
      redis.call('DEL', ARGV[6] .. stream)
      redis.call('ZREM', KEYS[2], stream)
    end
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return id`);
