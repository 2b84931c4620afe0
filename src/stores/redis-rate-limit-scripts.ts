/**
 * The Lua script of the Redis rate limit store (`RedisRateLimitStore`): taking from several token buckets at once,
 * all or none, on Redis's clock.
 * @module
 */
import { RedisScript } from './redis-script.js';

// KEYS: the buckets. ARGV: until when the take may run, on Redis's clock (ms; '' for ever), then burst,
// perSecond, cost for each bucket in turn. Returns {0, 0, now} when every bucket had enough (and took), else
// {i, ms, now}: the 1-based bucket with the longest wait and that wait (nothing taken); {-1, 0, now} when it
// runs too late (nothing taken, nothing written). \`now\`: Redis's clock (ms).
export const TAKE = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if ARGV[1] ~= '' and now > tonumber(ARGV[1]) then return {-1, 0, now} end
local levels = {}
local refused, wait = 0, -1
for i, key in ipairs(KEYS) do
  local burst, rate, cost = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local tokens = burst
  local stored = redis.call('HMGET', key, 'tokens', 'at')
  if stored[1] and stored[2] then
    local elapsed = math.max(0, now - tonumber(stored[2]))
    tokens = math.min(burst, tonumber(stored[1]) + elapsed / 1000 * rate)
  end
  levels[i] = tokens
  local missing = cost - tokens
  if missing > 1e-9 then
    local ms = math.ceil(missing / rate * 1000)
    if ms > wait then refused, wait = i, ms end
  end
end
for i, key in ipairs(KEYS) do
  local burst, rate, cost = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local tokens = levels[i]
  if refused == 0 then tokens = tokens - cost end
  redis.call('HSET', key, 'tokens', string.format('%.17g', tokens), 'at', string.format('%d', now))
  local full = math.min(1e15, math.max(1, math.ceil((burst - tokens) / rate * 1000)))
  redis.call('PEXPIRE', key, string.format('%d', full))
end
if refused == 0 then return {0, 0, now} end
return {refused, wait, now}`);
