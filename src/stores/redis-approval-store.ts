/**
 * Pending approvals in Redis, so that a call held on one gateway instance is decided through any other: a
 * hash per approval (`<prefix>gateway:approval:<id>`: the approval, its expiry, its outcome once settled),
 * dropped `keepSettledMs` after the approval expires, and an index of the pending ones
 * (`<prefix>gateway:approvals`, a sorted set by creation time, kept as long as its last approval); an
 * approval with large arguments keeps its listed form too (`listed`, without them), which listings read, and
 * which it keeps alone once settled (`approval` becomes it: a settled approval keeps its arguments only up to
 * `LISTED_ARGUMENTS_BYTES`). The latest `SETTLED_KEPT` settled approvals are kept (`<prefix>gateway:approvals:done`, a sorted set of their ids by
 * when they were settled): past them the oldest go, hash and all, however fast approvals are asked and withdrawn. `settle`
 * is one Lua script: it settles a pending approval only, so of two decisions at once exactly one wins, and
 * in the same step publishes the settlement on `<prefix>gateway:approvals:settled`, which the instance
 * holding the call hears.
 * @module
 */
import type { Redis } from 'ioredis';
import {
  DEFAULT_KEEP_SETTLED_MS,
  MAX_FENCED,
  SETTLED_KEPT,
  type AbandonResult,
  type ApprovalStore,
  type FenceResult,
  type SettleCheck,
  type PendingListing,
  type SettleResult,
  type SettlementWatcher,
  type StoredApproval,
} from './approval-store.js';
import type { ApprovalOutcome, PendingApproval } from './gateway-records.js';
import { listedApproval, type ListedApproval } from './listed-approval.js';
import type { PendingPageOptions } from './pending-position.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { RedisScript } from './redis-script.js';
import { RedisSubscriber } from './redis-subscriber.js';

export interface RedisApprovalStoreOptions extends RedisStoreOptions {
  /** How long a settled approval is remembered past its expiry, in ms (default 10 minutes). */
  keepSettledMs?: number;
  /** The pub/sub connection to share with other stores (default: one of its own, closed by `close()`). */
  subscriber?: RedisSubscriber;
  /**
   * Pending approvals one listing gives at most, oldest first (default 4,000: four gateways' budget of
   * 1,000 each); `listPending()` says how many wait in all.
   */
  maxListed?: number;
}

const NOW = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

// KEYS: the approval, the pending index. ARGV: the approval's JSON, expires-at (ms), created-at (ms),
// keep-settled (ms), id, its arguments' digest, its outcome when it expires (JSON), its JSON as listed
// ('' when that is the approval's).
const CREATE = new RedisScript(`
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

const SETTLE = new RedisScript(KEEP_SETTLED + SETTLE_SOURCE);

// SETTLE's KEYS and ARGV, then ARGV[9..11]: the approval's JSON as listed, expires-at (ms), its digest. An
// approval not stored (its create timed out, and may land late) is stored settled, kept as a settled one is: a create
// landing after this finds it and stores nothing.
const ABANDON = new RedisScript(`${KEEP_SETTLED}
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
const FENCE = new RedisScript(`
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
const PENDING = new RedisScript(`
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

/** Index members one listing looks at by default (gateways hold at most 1,000 approvals each). */
export const DEFAULT_MAX_LISTED_APPROVALS = 4_000;
const NAME = 'Redis approval store';

export class RedisApprovalStore implements ApprovalStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #keepMs: number;
  readonly #maxListed: number;
  readonly #subscriber: RedisSubscriber;
  readonly #ownsSubscriber: boolean;

  constructor(client: Redis, options: RedisApprovalStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}gateway:`;
    this.#keepMs = positiveOption(options.keepSettledMs ?? DEFAULT_KEEP_SETTLED_MS, 'keepSettledMs');
    this.#maxListed = positiveOption(options.maxListed ?? DEFAULT_MAX_LISTED_APPROVALS, 'maxListed');
    this.#ownsSubscriber = options.subscriber === undefined;
    this.#subscriber = options.subscriber ?? new RedisSubscriber(client);
  }

  async create(approval: PendingApproval): Promise<void> {
    const expiresAt = Date.parse(approval.expiresAt);
    const createdAt = Date.parse(approval.createdAt);
    if (!Number.isFinite(expiresAt) || !Number.isFinite(createdAt)) {
      throw new TypeError(`approval ${approval.id}: createdAt and expiresAt must be dates`);
    }
    const expired: ApprovalOutcome = { decision: 'expired', decidedAt: approval.expiresAt };
    const listed = listedApproval(approval);
    const created = await redisOperation(this.#client, NAME, 'create', () =>
      CREATE.run(
        this.#client,
        [this.#key(approval.id), this.#index()],
        [
          JSON.stringify(approval),
          expiresAt,
          createdAt,
          this.#keepMs,
          approval.id,
          approval.argumentsDigest,
          JSON.stringify(expired),
          listed === approval ? '' : JSON.stringify(listed),
        ],
      ),
    );
    if (created === 0) throw new Error(`An approval with the id ${approval.id} exists already`);
  }

  get(id: string): Promise<StoredApproval | undefined> {
    return redisOperation(this.#client, NAME, 'get', async () => {
      const [approval, expiresAt, outcome, expired] = await this.#client.hmget(
        this.#key(id),
        'approval',
        'expiresAt',
        'outcome',
        'expired',
      );
      if (!approval) return undefined;
      const settled = outcome ?? (Date.now() >= Number(expiresAt) ? expired : null);
      const stored: StoredApproval = settled
        ? {
            approval: JSON.parse(approval) as ListedApproval,
            outcome: JSON.parse(settled) as ApprovalOutcome,
          }
        : { approval: JSON.parse(approval) as PendingApproval };
      return stored;
    });
  }

  async pending(): Promise<ListedApproval[]> {
    return (await this.listPending()).approvals;
  }

  /**
   * One script: a page of the pending approvals (the oldest `maxListed` by default, never more), and the
   * index's size once they are pruned. `next` is the last index member looked at when more follow it (an
   * approval that expired unseen among them makes a page shorter, never a repeat).
   */
  listPending(page: PendingPageOptions = {}): Promise<PendingListing> {
    const limit = Math.max(1, Math.min(Math.floor(page.limit ?? this.#maxListed), this.#maxListed));
    const { after } = page;
    return redisOperation(this.#client, NAME, 'pending', async () => {
      const [total, score, member, ...found] = (await PENDING.run(
        this.#client,
        [this.#index()],
        [`${this.#prefix}approval:`, limit, after ? String(after.createdAt) : '', after?.id ?? ''],
      )) as [number, string, string, ...string[]];
      // An approval stored by an earlier version has no listed form: it is listed here.
      const approvals = found.map((json) => listedApproval(JSON.parse(json) as PendingApproval));
      const listing: PendingListing = { approvals, total: Math.max(total, approvals.length) };
      if (member !== '') listing.next = { createdAt: Number(score), id: member };
      return listing;
    });
  }

  settle(id: string, outcome: ApprovalOutcome, check: SettleCheck = {}): Promise<SettleResult> {
    return redisOperation(this.#client, NAME, 'settle', async () => {
      const reply = (await SETTLE.run(
        this.#client,
        this.#settleKeys(id),
        this.#settleArgs(id, outcome, check.argumentsDigest ?? '', check.token ?? ''),
      )) as SettleReply;
      return settleResult(reply);
    });
  }

  /** One script: whether the settlement named `token` landed; if not, it never will. */
  fence(id: string, token: string): Promise<FenceResult> {
    return redisOperation(this.#client, NAME, 'fence', async () => {
      const [status, approval, outcome] = (await FENCE.run(this.#client, [this.#key(id)], [token])) as [
        FenceResult['status'],
        string?,
        string?,
      ];
      if (status !== 'landed') return { status };
      return {
        status,
        approval: JSON.parse(approval!) as ListedApproval,
        outcome: JSON.parse(outcome!) as ApprovalOutcome,
      };
    });
  }

  /** One script: settles the approval as `settle` does, or stores it settled when it is not there (yet). */
  async abandon(approval: PendingApproval, outcome: ApprovalOutcome): Promise<AbandonResult> {
    const expiresAt = Date.parse(approval.expiresAt);
    if (!Number.isFinite(expiresAt)) throw new TypeError(`approval ${approval.id}: expiresAt must be a date`);
    const reply = await redisOperation(this.#client, NAME, 'abandon', async () =>
      ABANDON.run(this.#client, this.#settleKeys(approval.id), [
        ...this.#settleArgs(approval.id, outcome, '', ''),
        JSON.stringify(listedApproval(approval)),
        expiresAt,
        approval.argumentsDigest,
      ]),
    );
    if ((reply as [string])[0] === 'recorded') return { status: 'recorded' };
    const result = settleResult(reply as SettleReply);
    if (result.status === 'settled' || result.status === 'settled-before') return result;
    throw new Error(`approval ${approval.id}: abandon answered ${result.status}`);
  }

  watch(watcher: SettlementWatcher): Promise<() => void> {
    return this.#subscriber.subscribe(this.#channel(), {
      message: (text) => {
        const { id, outcome } = JSON.parse(text) as { id: string; outcome: ApprovalOutcome };
        watcher.settled(id, outcome);
      },
      missed: () => watcher.missed?.(),
    });
  }

  /** Closes the subscriber connection when the store opened it. */
  close(): void {
    if (this.#ownsSubscriber) this.#subscriber.close();
  }

  /** SETTLE's KEYS: the approval, the pending index, the settled ones kept. */
  #settleKeys(id: string): string[] {
    return [this.#key(id), this.#index(), `${this.#prefix}approvals:done`];
  }

  /**
   * SETTLE's ARGV: the outcome, the digest to check, the channel, the id, the message to publish, the token,
   * keep-settled, how many settled approvals are kept.
   */
  #settleArgs(id: string, outcome: ApprovalOutcome, digest: string, token: string): (string | number)[] {
    const text = JSON.stringify(outcome);
    const message = `{"id":${JSON.stringify(id)},"outcome":${text}}`;
    return [text, digest, this.#channel(), id, message, token, this.#keepMs, SETTLED_KEPT];
  }

  #key(id: string): string {
    return `${this.#prefix}approval:${id}`;
  }

  #index(): string {
    return `${this.#prefix}approvals`;
  }

  #channel(): string {
    return `${this.#prefix}approvals:settled`;
  }
}

type SettleReply = [SettleResult['status'], string?, string?];

function settleResult([status, approval, settled]: SettleReply): SettleResult {
  if (status === 'unknown') return { status };
  const parsed = JSON.parse(approval!) as PendingApproval;
  if (status === 'mismatch') return { status, approval: parsed };
  return { status, approval: parsed, outcome: JSON.parse(settled!) as ApprovalOutcome };
}
