/**
 * The Lua scripts of the Redis approval store (`RedisApprovalStore`): creating an approval, settling it
 * (or abandoning one whose create may land late), fencing a settlement's token, and listing the pending
 * ones; settling keeps the latest settled approvals and drops the oldest past them.
 * @module
 */
import { MAX_FENCED } from './approval-store.js';
import { RedisScript } from './redis-script.js';

const NOW = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

// KEYS: the approval, the pending index. ARGV: the approval's JSON, expires-at (ms), created-at (ms),
// keep-settled (ms), id, its arguments' digest, its outcome when it expires (JSON), its JSON as listed
// ('' when that is the approval's).
export const CREATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'approval', ARGV[1], 'expiresAt', ARGV[2], 'digest', ARGV[6], 'expired', ARGV[7])
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'listed', ARGV[8]) end
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[4]))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
${NOW}
local left = redis.call('PTTL', KEYS[2])
if left < 0 or now + left < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[2], ARGV[2]) end
return 1`);

// Lua: keeps the approval just settled (ARGV[4]) as listed (\`listed\`: its large arguments go) among the latest
// ARGV[8] settled (KEYS[3], scored by when they were settled): past them the oldest go, hashes and all; the
// set lasts as long as its last hash (\`expires\` + keep-settled, ARGV[7]).
const KEEP_SETTLED = `
local function keep_settled(now, expires, listed)
  if listed then
    redis.call('HSET', KEYS[1], 'approval', listed)
    redis.call('HDEL', KEYS[1], 'listed')
  end
  redis.call('ZADD', KEYS[3], now, ARGV[4])
  local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[8])
  if over > 0 then
    local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[4])
    for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
      if id ~= ARGV[4] then
        redis.call('DEL', prefix .. id)
        redis.call('ZREM', KEYS[3], id)
      end
    end
  end
  local til = tonumber(expires) + tonumber(ARGV[7])
  local left = redis.call('PTTL', KEYS[3])
  if left < 0 or now + left < til then redis.call('PEXPIREAT', KEYS[3], til) end
end`;

// KEYS: the approval, the pending index, the settled ones kept. ARGV: the outcome (JSON), the digest to check
// ('' for none), the channel, the id, the message to publish, the settlement's token ('' for none: a fenced
// one settles nothing), keep-settled (ms), how many settled approvals are kept. Returns { status, approval
// JSON, outcome JSON }.
const SETTLE_SOURCE = `
local f = redis.call('HMGET', KEYS[1], 'approval', 'expiresAt', 'outcome', 'digest', 'expired', 'fenced', 'listed')
if not f[1] then return {'unknown'} end
if ARGV[6] ~= '' then
  if f[6] then
    for _, token in ipairs(cjson.decode(f[6])) do
      if token == ARGV[6] then return {'unknown'} end
    end
  end
  -- A fence written by an earlier version (a field per token).
  if redis.call('HEXISTS', KEYS[1], 'fence:' .. ARGV[6]) == 1 then return {'unknown'} end
end
if f[3] then return {'settled-before', f[1], f[3]} end
${NOW}
if now >= tonumber(f[2]) then
  redis.call('HSET', KEYS[1], 'outcome', f[5])
  redis.call('HDEL', KEYS[1], 'fenced')
  redis.call('ZREM', KEYS[2], ARGV[4])
  keep_settled(now, f[2], f[7])
  return {'settled-before', f[7] or f[1], f[5]}
end
if ARGV[2] ~= '' and ARGV[2] ~= f[4] then return {'mismatch', f[1]} end
redis.call('HSET', KEYS[1], 'outcome', ARGV[1])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'token', ARGV[6]) end
redis.call('HDEL', KEYS[1], 'fenced')
redis.call('ZREM', KEYS[2], ARGV[4])
keep_settled(now, f[2], f[7])
redis.call('PUBLISH', ARGV[3], ARGV[5])
return {'settled', f[1], ARGV[1]}`;

export const SETTLE = new RedisScript(KEEP_SETTLED + SETTLE_SOURCE);

// SETTLE's KEYS and ARGV, then ARGV[9..11]: the approval's JSON as listed, expires-at (ms), its digest. An
// approval not stored (its create timed out, and may land late) is stored settled, kept as a settled one is: a create
// landing after this finds it and stores nothing.
export const ABANDON = new RedisScript(`${KEEP_SETTLED}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'approval', ARGV[9], 'expiresAt', ARGV[10], 'digest', ARGV[11], 'outcome', ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[10]) + tonumber(ARGV[7]))
  ${NOW}
  keep_settled(now, ARGV[10], false)
  return {'recorded'}
end
${SETTLE_SOURCE}`);

// KEYS: the approval. ARGV: a settlement's token. Returns {'landed', approval JSON, outcome JSON} when that
// settlement settled it, else fences the token ({'fenced'}: a settlement with it landing later settles
// nothing), or {'unknown'}. Only a pending approval keeps fenced tokens (a settlement landing on a settled
// or expired one changes nothing anyway), in one field (a JSON array), the latest MAX_FENCED; settling it
// drops them.
export const FENCE = new RedisScript(`
local f = redis.call('HMGET', KEYS[1], 'approval', 'outcome', 'token', 'expiresAt', 'fenced')
if not f[1] then return {'unknown'} end
if f[2] and f[3] == ARGV[1] then return {'landed', f[1], f[2]} end
${NOW}
if f[2] or now >= tonumber(f[4]) then return {'fenced'} end
local fenced = {}
if f[5] then fenced = cjson.decode(f[5]) end
for _, token in ipairs(fenced) do
  if token == ARGV[1] then return {'fenced'} end
end
fenced[#fenced + 1] = ARGV[1]
if #fenced > ${MAX_FENCED} then table.remove(fenced, 1) end
redis.call('HSET', KEYS[1], 'fenced', cjson.encode(fenced))
return {'fenced'}`);

// KEYS: the pending index. ARGV: the approval key prefix, how many index members to look at, and the
// position to look after ('' and '' from the start: its creation time in ms, its id). Returns the index's
// size once pruned, the score and member of the last member looked at when the index holds more after it
// ('' and '' otherwise), then the JSON of each pending approval as listed (its arguments left out when large:
// never read here), oldest first; members of settled, expired or gone ones are removed. Members of one score
// are ordered by their bytes (as Redis orders them), compared here byte by byte.
export const PENDING = new RedisScript(`
${NOW}
local limit = tonumber(ARGV[2])
local function later(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local ids, scores = {}, {}
-- One more than the page: whether more follow.
local function take(found, first)
  for i = 1, #found, 2 do
    if #ids <= limit and (not first or later(found[i], ARGV[4])) then
      ids[#ids + 1] = found[i]; scores[#ids] = found[i + 1]
    end
  end
end
if ARGV[3] == '' then take(redis.call('ZRANGE', KEYS[1], 0, limit, 'WITHSCORES'), false)
else
  take(redis.call('ZRANGE', KEYS[1], ARGV[3], ARGV[3], 'BYSCORE', 'WITHSCORES'), true)
  if #ids <= limit then
    take(redis.call('ZRANGE', KEYS[1], '(' .. ARGV[3], '+inf', 'BYSCORE', 'LIMIT', 0, limit + 1 - #ids, 'WITHSCORES'), false)
  end
end
local out = {0, '', ''}
if #ids > limit then
  ids[#ids] = nil
  out[2] = scores[limit]; out[3] = ids[limit]
end
for _, id in ipairs(ids) do
  local key = ARGV[1] .. id
  local f = redis.call('HMGET', key, 'expiresAt', 'outcome', 'listed')
  if (not f[1]) or f[2] or now >= tonumber(f[1]) then redis.call('ZREM', KEYS[1], id)
  else out[#out + 1] = f[3] or redis.call('HGET', key, 'approval') end
end
out[1] = redis.call('ZCARD', KEYS[1])
return out`);
