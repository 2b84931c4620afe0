/**
 * The Lua script of the Redis audit store (`RedisAuditStore`): appending a batch of records, numbered in order, to a
 * stream kept `ttlMs` and `maxRecords` long.
 * @module
 */
import { RedisScript } from './redis-script.js';

// KEYS: the stream, the counter. ARGV: max records, TTL (ms), then the records (JSON, without seq), numbered
// in order. Returns the last record's seq.
export const APPEND = new RedisScript(`
local count = #ARGV - 2
local last = redis.call('INCRBY', KEYS[2], count)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, count do
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 's', last - count + i, 'r', ARGV[i + 2])
end
redis.call('XTRIM', KEYS[1], 'MINID', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return last`);
