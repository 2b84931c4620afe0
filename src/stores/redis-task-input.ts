/**
 * The questions of a task in Redis, beside its record: the answers given through any process, kept until
 * the process running the task takes them (so an answer given while that process was cut off from Redis
 * waits for it), and who may send each question to the client (a claim, so that a question is sent once
 * however many processes carry the task's questions). One hash per task (`<prefix>task:input:<taskId>`),
 * `a:<key>` an answer as JSON, `c:<key>` a claim (`<until ms>:<claimant>`, on the Redis server's clock),
 * expiring with the task. Only the questions the record has pending (`inputRequests`) are answered or
 * claimed, and never once the task has ended. An answer stays until its question is no longer pending (a
 * take hands it over and keeps it: see TAKE).
 * @module
 */
import type { Redis } from 'ioredis';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { RedisScript } from './redis-script.js';
import { isTerminalStatus, type TaskStatus } from './task-store.js';

const STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A Lua condition on the local `status` (a record field, as JSON): the task has ended. */
export const TERMINAL = STATUSES.filter(isTerminalStatus)
  .map((status) => `status == '${JSON.stringify(status)}'`)
  .join(' or ');

/** Lua: the Redis server's clock, in ms. */
export const NOW_MS = `
local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end`;

// The pending questions of the task KEYS[1] (a table by key), or nil when it has ended or has none; and
// KEYS[2] made to expire with the task.
const ASKED = `
local function asked()
  local status = redis.call('HGET', KEYS[1], 'status')
  if not status or ${TERMINAL} then return nil end
  local pending = redis.call('HGET', KEYS[1], 'inputRequests')
  if not pending then return nil end
  return cjson.decode(pending)
end
local function expire_with_task()
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then redis.call('PEXPIRE', KEYS[2], left) end
end`;

// KEYS: the task, its input hash. ARGV: key, answer (JSON) pairs. Returns the keys kept.
const ANSWER = new RedisScript(`${ASKED}
local pending = asked()
if not pending then return {} end
local kept = {}
for i = 1, #ARGV, 2 do
  if pending[ARGV[i]] ~= nil and redis.call('HSETNX', KEYS[2], 'a:' .. ARGV[i], ARGV[i + 1]) == 1 then
    kept[#kept + 1] = ARGV[i]
  end
end
if #kept > 0 then expire_with_task() end
return kept`);

// KEYS: the task, its input hash. Returns the key, answer pairs of the questions the task has pending; the
// answers (and claims) of the others are removed. A take leaves an answer while its question is pending: a
// take whose reply never came (it timed out on a frozen Redis, and ran when it thawed) loses nothing, and
// the process running the task, which ignores answers to questions it no longer waits for, takes it again.
const TAKE = new RedisScript(`${ASKED}
local pending = asked()
local fields = redis.call('HGETALL', KEYS[2])
local out = {}
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'a:' then
    local key = string.sub(fields[i], 3)
    if pending and pending[key] ~= nil then
      out[#out + 1] = key
      out[#out + 1] = fields[i + 1]
    else
      redis.call('HDEL', KEYS[2], fields[i], 'c:' .. key)
    end
  end
end
return out`);

// KEYS: the task, its input hash. ARGV: the claimant, the claim (ms), then the keys. Returns the keys the
// claimant holds now: pending, without an answer, and unclaimed, claimed by it, or whose claim lapsed.
const CLAIM = new RedisScript(`${NOW_MS}${ASKED}
local pending = asked()
if not pending then return {} end
local now = now_ms()
local held = {}
for i = 3, #ARGV do
  local key = ARGV[i]
  if pending[key] ~= nil and redis.call('HEXISTS', KEYS[2], 'a:' .. key) == 0 then
    local claim = redis.call('HGET', KEYS[2], 'c:' .. key)
    local free = not claim
    if claim then
      local colon = string.find(claim, ':', 1, true)
      free = tonumber(string.sub(claim, 1, colon - 1)) <= now or string.sub(claim, colon + 1) == ARGV[1]
    end
    if free then
      redis.call('HSET', KEYS[2], 'c:' .. key, (now + tonumber(ARGV[2])) .. ':' .. ARGV[1])
      held[#held + 1] = key
    end
  end
end
if #held > 0 then expire_with_task() end
return held`);

/** Keeps answers to the task's pending questions (see `TaskStore.answerInput`); resolves with the keys kept. */
export async function answerInput(
  client: Redis,
  keys: [task: string, input: string],
  responses: JsonObject,
): Promise<string[]> {
  const pairs = Object.entries(responses).flatMap(([key, answer]) => [key, JSON.stringify(answer)]);
  if (pairs.length === 0) return [];
  return (await ANSWER.run(client, keys, pairs)) as string[];
}

/** Resolves with the answers kept for a task's pending questions (see TAKE). */
export async function takeAnswers(client: Redis, keys: [task: string, input: string]): Promise<JsonObject> {
  const pairs = (await TAKE.run(client, keys, [])) as string[];
  const answers: JsonObject = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) answers[pairs[i]!] = JSON.parse(pairs[i + 1]!) as JsonObject;
  return answers;
}

/** Claims the task's pending questions `questions` for `claimant`; resolves with the keys it holds. */
export async function claimInput(
  client: Redis,
  keys: [task: string, input: string],
  questions: readonly string[],
  claimant: string,
  ms: number,
): Promise<string[]> {
  if (questions.length === 0) return [];
  if (!(ms > 0)) throw new TypeError('claimInput: ms must be positive');
  return (await CLAIM.run(client, keys, [claimant, Math.ceil(ms), ...questions])) as string[];
}
