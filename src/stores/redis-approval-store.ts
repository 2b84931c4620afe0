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
import { ABANDON, CREATE, FENCE, PENDING, SETTLE } from './redis-approval-scripts.js';
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
