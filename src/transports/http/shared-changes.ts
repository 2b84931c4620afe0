/**
 * Registry changes and resource updates shared by the processes on one session bus (`bus:all`): a
 * `list_changed` a registry change owes (once per burst) and each `server.notifyResourceUpdated(uri)`
 * made here (coalesced per URI: one publish under way, one more for the updates that came meanwhile) are
 * sent to the other processes; what they send is delivered here, on the stateless-era
 * `subscriptions/listen` streams open here that asked for it and through `deliver` (the handshake-era
 * `GET` streams of shared sessions). The process that made a change sends on its own streams itself, and
 * the bus does not echo, so each stream gets each change once.
 * @module
 */
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { CoalescedUpdates } from '../../server/resources/coalesced-updates.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { BusAddress, SessionBus } from '../../stores/session-bus.js';

/** The notifications a registry change owes; one process's change reaches every process's streams. */
export const LIST_CHANGED = /^notifications\/(tools|resources|prompts)\/list_changed$/;
export const RESOURCE_UPDATED = 'notifications/resources/updated';

/** Where another process's changes go besides the listen streams. */
export interface ChangeTargets {
  listChanged(method: string): void;
  resourceUpdated(uri: string): void;
}

export class SharedChanges {
  readonly #bus: SessionBus;
  readonly #server: ServerRuntime;
  readonly #onError: (error: Error) => void;
  readonly #deliver: ChangeTargets | undefined;
  /** `list_changed` notifications owed to the other processes, sent once per burst. */
  readonly #owed = new Set<string>();
  #owedTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #unlisten: () => void;
  /** The resource updates being published, per URI (see `CoalescedUpdates`). */
  readonly #updates = new CoalescedUpdates();

  constructor(
    bus: SessionBus,
    server: ServerRuntime,
    onError: (error: Error) => void,
    deliver?: ChangeTargets,
  ) {
    this.#bus = bus;
    this.#server = server;
    this.#onError = onError;
    this.#deliver = deliver;
    const unlisten = server.onListChanged((method) => this.#registryChanged(method));
    // Coalesced per URI, as each subscriber's are (one publish under way, one more for what came meanwhile):
    // a server relaying 100,000 updates of one URI made 100,000 publishes.
    const unwatch = server.onResourceUpdated((uri) => {
      void this.#updates.send(this, uri, () =>
        this.#bus
          .toAll({ kind: 'resourceUpdated', uri })
          .catch((error: unknown) => this.#onError(error as Error)),
      );
    });
    const untask = server.onTaskChanged((task) => {
      this.#bus.toAll({ kind: 'task', task }).catch((error: unknown) => this.#onError(error as Error));
    });
    this.#unlisten = () => {
      unlisten();
      unwatch();
      untask();
    };
  }

  /** Stops telling the other processes of registry and resource changes. */
  close(): void {
    this.#unlisten();
    clearTimeout(this.#owedTimer);
    this.#owed.clear();
  }

  /** Delivers another process's change here; false for a message that is not one. */
  receive(payload: JsonObject, address: BusAddress): boolean {
    if (address.to !== 'all') return false;
    const { kind, method, uri, task } = payload;
    if (kind === 'listChanged') {
      if (typeof method === 'string' && LIST_CHANGED.test(method)) {
        this.#relay(method, {});
        this.#deliver?.listChanged(method);
      }
      return true;
    }
    if (kind === 'resourceUpdated') {
      if (typeof uri === 'string') {
        this.#relay(RESOURCE_UPDATED, { uri });
        this.#deliver?.resourceUpdated(uri);
      }
      return true;
    }
    if (kind === 'task') {
      // An extension task changed on another process: its DetailedTask on the streams here that name it.
      if (isJsonObject(task) && typeof task.taskId === 'string') this.#relay('notifications/tasks', task);
      return true;
    }
    return false;
  }

  #relay(method: string, params: JsonObject): void {
    this.#server.relayToListeners(method, params).catch((error: unknown) => this.#onError(error as Error));
  }

  /** A registry changed here: the other processes send the `list_changed` on their streams. */
  #registryChanged(method: string): void {
    this.#owed.add(method);
    this.#owedTimer ??= setTimeout(() => {
      this.#owedTimer = undefined;
      for (const owed of this.#owed) {
        this.#bus
          .toAll({ kind: 'listChanged', method: owed })
          .catch((error: unknown) => this.#onError(error as Error));
      }
      this.#owed.clear();
    }, this.#server.options.listChangedDebounceMs ?? 10);
    (this.#owedTimer as { unref?: () => void }).unref?.();
  }
}
