/**
 * The Lua scripts of the Redis task store (`RedisTaskStore`): creating a task (under its limit, in its
 * owner's index), listing an owner's tasks, reading, renewing leases and updating one, settling on the way
 * a task whose lease ran out; and the key that signs list cursors.
 * @module
 */
import { RedisScript } from './redis-script.js';
import { NOW_MS, TERMINAL } from './redis-task-input.js';

// Settling a task (key, id) whose lease ran out while it had not ended: failed with -32603,
// lastUpdatedAt `at` (an ISO date as JSON).
const LEASES = `${NOW_MS}
local function expire_lease(key, id, at)
  local lease = redis.call('HGET', key, 'lease')
  if not lease or tonumber(lease) > now_ms() then return end
  local status = redis.call('HGET', key, 'status')
  if ${TERMINAL} then return end
  local message = 'The server instance running task ' .. id .. ' stopped before it finished'
  redis.call('HSET', key, 'status', '"failed"', 'statusMessage', cjson.encode(message),
    'error', cjson.encode({ code = -32603, message = message }), 'lastUpdatedAt', at)
  redis.call('HDEL', key, 'inputRequests', 'lease')
end
`;

/**
 * Members of an owner's index looked at, oldest first, by each task created: those of expired tasks go.
 * Four per task: what expired goes three times as fast as tasks come, past a task that lives longer.
 */
const PRUNED_PER_CREATE = 4;

// KEYS: the task, the running tasks of its limit key and its ended ones (the task's key again for both when
// it has no limit), then (when it has an owner) the owner's index. ARGV: expires-at (ms since the epoch), the
// index member, the lease (ms; 0: none), the task keys' prefix (`task:t:`), the limit (0: none), the time now
// (JSON), the ended tasks kept (0: every one), then the record's field/JSON pairs. Returns 0 when the id is
// taken, -1 when the limit is reached, else 1.
// The running set (its ids scored by when they expire) holds the tasks created under the key that may
// still run: expired ones, ended ones and those whose lease ran out (settled here) are dropped before
// counting, so a task ended by any process frees its place, and the set never holds more than the limit.
// Those found ended join the ended set (scored alike: by creation, for tasks of one ttl), of which the
// oldest past ARGV[7] go, hash, answers and all (an owner's index drops their ids as it meets them).
// The index lives as long as its newest task; each task created drops the members of expired tasks among
// the index's oldest PRUNED_PER_CREATE (a listing drops those it meets), so an owner that never lists does
// not grow it for as long as it keeps starting tasks.
export const CREATE = new RedisScript(`${LEASES}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = now_ms()
local max = tonumber(ARGV[5])
local function extend(key, til)
  local left = redis.call('PTTL', key)
  if left < 0 or now + left < tonumber(til) then redis.call('PEXPIREAT', key, til) end
end
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local found = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #found, 2 do
    local id = found[i]
    local key = ARGV[4] .. id
    expire_lease(key, id, ARGV[6])
    local status = redis.call('HGET', key, 'status')
    if not status or ${TERMINAL} then
      redis.call('ZREM', KEYS[2], id)
      if status then
        redis.call('ZADD', KEYS[3], found[i + 1], id)
        extend(KEYS[3], found[i + 1])
      end
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= max then return -1 end
  local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[7])
  if tonumber(ARGV[7]) > 0 and over > 0 then
    local input = string.sub(ARGV[4], 1, #ARGV[4] - 2) .. 'input:'
    for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
      local status = redis.call('HGET', ARGV[4] .. id, 'status')
      if status and ${TERMINAL} then redis.call('DEL', ARGV[4] .. id, input .. id) end
      redis.call('ZREM', KEYS[3], id)
    end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 8))
if tonumber(ARGV[3]) > 0 then redis.call('HSET', KEYS[1], 'lease', now + tonumber(ARGV[3])) end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
if max > 0 then
  redis.call('ZADD', KEYS[2], ARGV[1], string.sub(KEYS[1], #ARGV[4] + 1))
  extend(KEYS[2], ARGV[1])
end
if KEYS[4] then
  for _, member in ipairs(redis.call('ZRANGEBYLEX', KEYS[4], '-', '+', 'LIMIT', 0, ${PRUNED_PER_CREATE})) do
    if redis.call('EXISTS', ARGV[4] .. string.sub(member, 17)) == 0 then redis.call('ZREM', KEYS[4], member) end
  end
  redis.call('ZADD', KEYS[4], 0, ARGV[2])
  extend(KEYS[4], ARGV[1])
end
return 1`);

// KEYS: the owner's index. ARGV: the task keys' prefix (`task:t:`), where to start ('-' or '(' + member), the page
// size, how many index members one call may look at, the time now (JSON). Returns the cursor ('' when
// this is the last page), then the HGETALL of each task on the page. Members of tasks that expired are
// removed as they are met; tasks whose lease ran out are settled.
export const LIST = new RedisScript(`${LEASES}
local limit = tonumber(ARGV[3])
local budget = tonumber(ARGV[4])
local start = ARGV[2]
local out = {''}
local records = 0
local last = nil
while budget > 0 do
  local batch = redis.call('ZRANGEBYLEX', KEYS[1], start, '+', 'LIMIT', 0, 64)
  if #batch == 0 then return out end
  for _, member in ipairs(batch) do
    budget = budget - 1
    local key = ARGV[1] .. string.sub(member, 17)
    if redis.call('EXISTS', key) == 1 then
      if records == limit then
        out[1] = last
        return out
      end
      expire_lease(key, string.sub(member, 17), ARGV[5])
      out[#out + 1] = redis.call('HGETALL', key)
      records = records + 1
    else
      redis.call('ZREM', KEYS[1], member)
    end
    last = member
    if budget == 0 then break end
  end
  start = '(' .. last
end
out[1] = last
return out`);

// KEYS: the cursor key's key. ARGV: a new secret. Stores it unless there is one; returns the one kept.
export const CURSOR_KEY = new RedisScript(`redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`);

// KEYS: the task. ARGV: its id, the time now (JSON). The HGETALL of the task, settled first when its
// lease ran out; empty for a key that is not a hash (no task).
export const GET = new RedisScript(`${LEASES}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return {} end
expire_lease(KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])`);

// KEYS: the tasks. ARGV: the lease (ms). Renews the lease of each task that has one and has not ended;
// returns the indexes (from 1) of the others (ended, gone, or settled by a reader: their run should stop).
export const RENEW = new RedisScript(`${LEASES}
local lost = {}
local until_ms = now_ms() + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local status = redis.call('HGET', key, 'status')
  if status and not (${TERMINAL}) and redis.call('HEXISTS', key, 'lease') == 1 then
    redis.call('HSET', key, 'lease', until_ms)
  else
    lost[#lost + 1] = i
  end
end
return lost`);

// KEYS: the task. ARGV: the change's lastUpdatedAt as JSON when it is checked ('' when not: see
// checkedUpdateTime), n, then n field/JSON values, then fields to delete. A checked change older than the
// record's lastUpdatedAt (a write that timed out on a frozen Redis and ran when it thawed, after a later
// one) changes nothing. Returns the record as stored afterwards (HGETALL's pairs), or false when there is no
// such task.
export const UPDATE = new RedisScript(`
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return false end
local status, last = unpack(redis.call('HMGET', KEYS[1], 'status', 'lastUpdatedAt'))
local stale = ARGV[1] ~= '' and last
  and string.match(last, '^"%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%dZ"$') ~= nil and ARGV[1] < last
if not (${TERMINAL}) and not stale then
  local n = tonumber(ARGV[2])
  if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + n)) end
  if #ARGV > 2 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 3 + n)) end
end
return redis.call('HGETALL', KEYS[1])`);
