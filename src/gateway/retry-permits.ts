/**
 * Retry permits: a stateless-era call that was approved and then asked its caller for input comes back
 * as a retry carrying the answer, maybe to another instance; a permit lets that one retry through without
 * asking a person again. Kept in the gateway's grant store (its scope `:retries`), so any instance sharing
 * it takes the permit, once. `Approvals` holds one (it holds the grant store).
 * @module
 */
import type { GrantStore } from '../stores/grant-store.js';

/** The grants' scope of allowed retries (upstream names, the other scopes, have no ':'). */
const RETRIES = ':retries';

export class RetryPermits {
  /** The grant store in use (the gateway's may change before anything was stored: `Approvals.useStores`). */
  readonly #grants: () => GrantStore;

  constructor(grants: () => GrantStore) {
    this.#grants = grants;
  }

  /** Lets one retry of the call `key` names through without asking again, for `ms`. */
  allow(key: string, ms: number): Promise<void> {
    return this.#grants().grant(RETRIES, key, Date.now() + ms);
  }

  /** Whether a retry was allowed (`allow`), using the permit up. */
  take(key: string): Promise<boolean> {
    return this.#grants().take(RETRIES, key);
  }
}
