/**
 * The leases of the tasks this process runs, on a store several processes share (one with
 * `renewLeases`): one timer for all of them, every `leaseRenewalMs`, while any runs (unref'd: it keeps no
 * process alive). A task that the store says has ended or is gone (settled `failed` by another process
 * that found its lease run out, while this one was stalled or cut off from the store) has its run stopped:
 * whatever its handler does next would not be recorded. A renewal that fails (the store unreachable) is
 * reported and tried again at the next tick.
 * @module
 */
import { asError } from '../../protocol/errors.js';
import type { TaskStore } from '../../stores/task-store.js';

export interface TaskLeasesHost {
  readonly store: TaskStore;
  /** The ids of the tasks this process runs now. */
  running(): string[];
  /** A task whose lease the store would not renew: stop its run. */
  lost(taskId: string): void;
  /** The leases were renewed (a tick to catch up on what may have been missed meanwhile). */
  renewed?(): void;
  readonly shutdownSignal: AbortSignal;
  readonly onError?: ((error: Error) => void) | undefined;
}

export class TaskLeases {
  readonly #host: TaskLeasesHost;
  #timer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(host: TaskLeasesHost) {
    this.#host = host;
  }

  /** Whether tasks created now are leased (the store renews leases). */
  get leased(): boolean {
    const { store } = this.#host;
    return store.renewLeases !== undefined && positive(store.leaseRenewalMs);
  }

  /** A leased task started running here: renew from now on. */
  started(): void {
    if (this.#timer !== undefined || !this.leased || this.#host.shutdownSignal.aborted) return;
    this.#timer = setInterval(() => void this.#renew(), this.#host.store.leaseRenewalMs);
    this.#timer.unref?.();
  }

  /** A task stopped running here: no timer once none runs. */
  stopped(): void {
    if (this.#timer !== undefined && this.#host.running().length === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  async #renew(): Promise<void> {
    const taskIds = this.#host.running();
    // One renewal at a time (a slow store skips ticks rather than piling them up).
    if (this.#renewing || taskIds.length === 0) return;
    this.#renewing = true;
    try {
      const lost = (await this.#host.store.renewLeases?.(taskIds)) ?? [];
      for (const taskId of lost) this.#host.lost(taskId);
      this.#host.renewed?.();
    } catch (error) {
      this.#host.onError?.(asError(error));
    } finally {
      this.#renewing = false;
    }
  }
}

function positive(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
