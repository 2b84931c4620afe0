/**
 * The Lua scripts of the Redis call log store (`RedisCallLogStore`): writing a batch of calls, and reading
 * them — listing the latest, or one — settling on the way the running calls of an instance that no longer
 * lives (`outcome: 'lost'`).
 * @module
 */
import { CALL_IDS_PER_INSTANCE, lostCallError } from './call-log-store.js';
import { RedisScript } from './redis-script.js';

/** Fields per call in WRITE's ARGV. */
const FIELDS = 8;

// KEYS: the index, the trimmed calls (a sorted set: id by start score), the changes (a hash: the store's epoch
// 'e', the latest change's number 'n', the latest of a trimmed call 't'), the changed calls (a sorted set: id by
// the number of its latest change), the running calls (a sorted set: id by start score, as the index; a call
// goes in as it is written running, and out as it is written finished or settled lost). ARGV: the call hash prefix, max calls, TTL (ms), trimmed calls kept, an
// epoch (taken when the store has none), then per call: id, score, summary, arguments ('' to leave), result
// ('' none), error ('' none), '1' when it starts (else ''), '1' when it has finished (else '0'). A batch that
// timed out on a frozen Redis still runs when it thaws (the command was on its socket), after the batches
// sent on the connection made since: so a call's end is written even when the call is not kept (yet: its
// start may land later), and a start or progress of a call kept finished never makes it running again (a
// late start only adds the arguments and index entry it lacks). Nor does a late start of a call trimmed
// since it ended: a trimmed call's id stays in the trimmed set (the latest so many), and a start of it no
// later than the start it was trimmed with writes nothing. Progress of a call not kept is not written. Past
// max calls in the index, the finished ones older than the latest max go (the running ones stay).
export const WRITE = new RedisScript(`
local prefix, max, ttl, kept = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
redis.call('HSETNX', KEYS[3], 'e', ARGV[5])
for i = 6, #ARGV, ${FIELDS} do
  local id, key, start, finished = ARGV[i], ARGV[1] .. ARGV[i], ARGV[i + 6] == '1', ARGV[i + 7] == '1'
  local was = redis.call('HGET', key, 'f')
  local trimmed = false
  if not was and start and not finished then
    local at = redis.call('ZSCORE', KEYS[2], id)
    trimmed = at ~= false and tonumber(at) >= tonumber(ARGV[i + 1])
  end
  if trimmed then
  elseif was == '1' and not finished then
    if start then
      if ARGV[i + 3] ~= '' then redis.call('HSETNX', key, 'a', ARGV[i + 3]) end
      redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 1], id)
    end
  elseif start or was or finished then
    local f = {'s', ARGV[i + 2], 'f', ARGV[i + 7]}
    if ARGV[i + 3] ~= '' then f[#f + 1] = 'a'; f[#f + 1] = ARGV[i + 3] end
    if ARGV[i + 4] ~= '' then f[#f + 1] = 'r'; f[#f + 1] = ARGV[i + 4] end
    if ARGV[i + 5] ~= '' then f[#f + 1] = 'e'; f[#f + 1] = ARGV[i + 5] end
    redis.call('HSET', key, unpack(f))
    redis.call('PEXPIRE', key, ttl)
    redis.call('ZADD', KEYS[4], redis.call('HINCRBY', KEYS[3], 'n', 1), id)
    if start or not was then redis.call('ZADD', KEYS[1], ARGV[i + 1], id) end
    if finished then redis.call('ZREM', KEYS[5], id)
    elseif start or not was then redis.call('ZADD', KEYS[5], ARGV[i + 1], id) end
  end
end
local extra = redis.call('ZCARD', KEYS[1]) - max
if extra > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, extra - 1, 'WITHSCORES')
  local floor = tonumber(redis.call('HGET', KEYS[3], 't') or '0')
  for j = 1, #oldest, 2 do
    local id = oldest[j]
    if redis.call('HGET', prefix .. id, 'f') ~= '0' then
      redis.call('DEL', prefix .. id)
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZADD', KEYS[2], oldest[j + 1], id)
      local changed = tonumber(redis.call('ZSCORE', KEYS[4], id) or '0')
      if changed > floor then floor = changed end
      redis.call('ZREM', KEYS[4], id)
    end
  end
  redis.call('HSET', KEYS[3], 't', floor)
  local over = redis.call('ZCARD', KEYS[2]) - kept
  if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1) end
  redis.call('PEXPIRE', KEYS[2], ttl)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
if redis.call('EXISTS', KEYS[5]) == 1 then redis.call('PEXPIRE', KEYS[5], ttl) end
return 1`);

// Lua: \`settled(key, id, fields...)\` reads a call's fields ('s' and 'f' first); a running call (f '0') of an
// instance from 1 whose live key (ARGV[3] .. instance) is gone is settled first: its summary says
// finished and lost, its error why, a change numbered as WRITE's (KEYS[2] and KEYS[3]: the changes and the
// changed calls), and it leaves the running calls (KEYS[4]). ARGV[4] and ARGV[5]: the error's JSON around the instance number. Only
// the summary's own "state":"running" can match: inside a JSON string every quote is escaped.
const SETTLE = `
local alive = {}
local function settled(key, id, ...)
  local values = redis.call('HMGET', key, 's', 'f', ...)
  if values[2] ~= '0' then return values end
  local instance = math.floor(tonumber(id) / ${CALL_IDS_PER_INSTANCE})
  if instance < 1 then return values end
  if alive[instance] == nil then alive[instance] = redis.call('EXISTS', ARGV[3] .. instance) == 1 end
  if alive[instance] then return values end
  local summary = string.gsub(values[1], '"state":"running"', '"state":"finished","outcome":"lost"', 1)
  local error = ARGV[4] .. instance .. ARGV[5]
  redis.call('HSET', key, 's', summary, 'f', '1', 'e', error)
  redis.call('ZADD', KEYS[3], redis.call('HINCRBY', KEYS[2], 'n', 1), id)
  redis.call('ZREM', KEYS[4], id)
  values[1], values[2] = summary, '1'
  for i = 3, #values do if select(i - 2, ...) == 'e' then values[i] = error end end
  return values
end
`;

// KEYS: the index, the changes, the changed calls, the running calls (as WRITE's). ARGV: the call hash prefix, how
// many, then as SETTLE's, then how many running calls older than those at most, an epoch (taken when the store
// has none), the marker's epoch and number ('' for none), the TTL (ms) of changes the read makes. Returns '1'
// when it follows the marker ('0': it lists), the store's epoch, the latest change's number, how many running
// calls the listing leaves out (older than the latest so many, past the most listed), then the summaries, newest
// first: those changed after the marker, or the latest so many, then the running ones older (the index holds the
// latest max calls and the running ones older: WRITE trims the others). A marker is followed when it is this
// store's (epoch), no later than its latest change and no earlier than the latest change of a call trimmed.
// The running calls of an instance gone are settled first (a change after the marker), reading the running
// calls only (one that is not, its hash gone with its TTL, leaves them); the changes' 'r' says the running calls
// are kept so (a store written by an older version has the index read once to make them).
export const LIST = new RedisScript(`${SETTLE}
local count, most = tonumber(ARGV[2]), tonumber(ARGV[6])
if redis.call('HSETNX', KEYS[2], 'e', ARGV[7]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[10]) end
local epoch = redis.call('HGET', KEYS[2], 'e')
local since = tonumber(ARGV[9])
local follow = since ~= nil and ARGV[8] == epoch
  and since >= tonumber(redis.call('HGET', KEYS[2], 't') or '0')
  and since <= tonumber(redis.call('HGET', KEYS[2], 'n') or '0')
local out = {follow and '1' or '0', epoch, '0', '0'}
-- A store written by a version without the running set ('r' unset in the changes): it is made, once.
if redis.call('HGET', KEYS[2], 'r') ~= '1' then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if redis.call('HGET', ARGV[1] .. id, 'f') == '0' then
      redis.call('ZADD', KEYS[4], redis.call('ZSCORE', KEYS[1], id), id)
    end
  end
  redis.call('HSET', KEYS[2], 'r', '1')
  redis.call('PEXPIRE', KEYS[4], ARGV[10])
end
-- The running calls older than the latest so many, newest first (the running set sorts as the index).
local behind = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[4], 0, -1)) do
  local values = settled(ARGV[1] .. id, id)
  if values[2] ~= '0' then redis.call('ZREM', KEYS[4], id)
  else
    local rank = redis.call('ZREVRANK', KEYS[1], id)
    if rank and rank >= count then behind[#behind + 1] = values[1] end
  end
end
out[4] = tostring(math.max(0, #behind - most))
if follow then
  local found = {}
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, '+inf')) do
    local at = redis.call('ZSCORE', KEYS[1], id)
    local summary = settled(ARGV[1] .. id, id)[1]
    if at and summary then found[#found + 1] = {tonumber(at), summary} end
  end
  table.sort(found, function(x, y) return x[1] > y[1] end)
  for _, call in ipairs(found) do out[#out + 1] = call[2] end
else
  if count > 0 then
    for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, count - 1)) do
      local summary = settled(ARGV[1] .. id, id)[1]
      if summary then out[#out + 1] = summary end
    end
  end
  for j = 1, math.min(most, #behind) do out[#out + 1] = behind[j] end
end
out[3] = redis.call('HGET', KEYS[2], 'n') or '0'
return out`);

// KEYS: the call's hash, the changes, the changed calls, the running calls. ARGV: its id, '', then as SETTLE's. Returns its summary, arguments, result, error.
export const GET = new RedisScript(`${SETTLE}
local v = settled(KEYS[1], ARGV[1], 'a', 'r', 'e')
return {v[1], v[3], v[4], v[5]}`);

/** The lost call's error as JSON, split around the instance number (the script puts it in). */
export const [LOST_BEFORE, LOST_AFTER] = JSON.stringify(lostCallError(NaN)).split('NaN') as [string, string];
