/**
 * The Lua scripts of the Redis grant store (`RedisGrantStore`): keeping a grant in its scope (sweeping those that ran
 * out, bounded), and taking one.
 * @module
 */
import { RedisScript } from './redis-script.js';

// KEYS: the scope's sorted set, its latest end dropped. ARGV: the grant's key, until (ms), how many that ran
// out to sweep (and to drop past the bound) at most, the bound. Every command is O(log n) or bounded by
// ARGV[3]: past the bound, those that end soonest go (not this grant), and the latest end of one that still
// held is kept, until that end.
export const GRANT = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local gone = math.min(redis.call('ZCOUNT', KEYS[1], '-inf', now), tonumber(ARGV[3]))
if gone > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, gone - 1) end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local over = math.min(redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4]), tonumber(ARGV[3]))
if over > 0 then
  local soonest = redis.call('ZRANGE', KEYS[1], 0, over, 'WITHSCORES')
  local latest = 0
  for i = 1, #soonest, 2 do
    if over > 0 and soonest[i] ~= ARGV[1] then
      redis.call('ZREM', KEYS[1], soonest[i])
      over = over - 1
      local ends = tonumber(soonest[i + 1])
      if ends > now and ends > latest then latest = ends end
    end
  end
  if latest > tonumber(redis.call('GET', KEYS[2]) or '0') then
    redis.call('SET', KEYS[2], latest)
    redis.call('PEXPIREAT', KEYS[2], latest)
  end
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 or now + left < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1`);

// KEYS: the scope's sorted set. ARGV: the grant's key, now (ms). Returns 1 when it held (and removes it).
export const TAKE = new RedisScript(`
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not ends then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(ends) > tonumber(ARGV[2]) then return 1 end
return 0`);
