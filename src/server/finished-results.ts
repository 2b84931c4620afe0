/**
 * The stateless era's last step on every result (`resultType`, the cache hint, `serverInfo`), with what
 * repeats kept: the server's info shaped once per revision, and each list page finished once. A page is
 * built once per registry change and revision and serialized once (`serializeOnce`); finishing it
 * afresh for every request would copy it and serialize it again, which is most of a list's cost.
 * @module
 */
import { isSerializedOnce, serializeOnce } from '../protocol/json-text.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';
import type { Implementation } from '../protocol/types/lifecycle.js';
import type { CacheHint } from '../protocol/types/stateless.js';

/** A finished page and what it was finished with (the cache hint may change: see `Server.cache`). */
interface Kept {
  readonly version: string;
  readonly ttlMs: number;
  readonly cacheScope: CacheHint['cacheScope'];
  readonly finished: object;
}

export class FinishedResults {
  readonly #info: Implementation;
  readonly #infos = new Map<string, Implementation>();
  readonly #pages = new WeakMap<object, Kept>();

  constructor(info: Implementation) {
    this.#info = info;
  }

  /**
   * `result` finished for `profile`'s era; `cache` for cacheable results (lists, reads). A page marked by
   * `serializeOnce` is finished once and the finished copy is marked too, so its JSON text is kept.
   */
  finish(profile: RevisionProfile, result: object, cache?: CacheHint): object {
    const serverInfo = this.#serverInfo(profile);
    if (!cache || !isSerializedOnce(result)) return profile.finishResult(result, { serverInfo, cache });
    const kept = this.#pages.get(result);
    if (
      kept?.version === profile.version &&
      kept.ttlMs === cache.ttlMs &&
      kept.cacheScope === cache.cacheScope
    ) {
      return kept.finished;
    }
    const finished = profile.finishResult(result, { serverInfo, cache });
    if (finished !== result) {
      const meta = '_meta' in finished ? finished._meta : undefined;
      if (typeof meta === 'object' && meta !== null) Object.freeze(meta);
      serializeOnce(finished);
    }
    this.#pages.set(result, {
      version: profile.version,
      ttlMs: cache.ttlMs,
      cacheScope: cache.cacheScope,
      finished,
    });
    return finished;
  }

  /** The server's info as `profile` shows it, shaped once per revision (it is frozen, and shared). */
  #serverInfo(profile: RevisionProfile): Implementation {
    let info = this.#infos.get(profile.version);
    if (!info) {
      info = Object.freeze(profile.shapeImplementation(this.#info));
      this.#infos.set(profile.version, info);
    }
    return info;
  }
}
