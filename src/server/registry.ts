/**
 * One generic registry for everything a server exposes by name (tools now; resources and prompts use
 * the same code). Entries keep insertion order; the list of enabled entries is an immutable snapshot
 * rebuilt once per change and shared by every session.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { ServerError } from './server-error.js';

/** What `register` returns: change one entry without touching the others. */
export interface RegistryHandle<TDefinition> {
  readonly name: string;
  readonly enabled: boolean;
  readonly removed: boolean;
  enable(): void;
  /** Takes the entry out of every list (a tool's handle also takes a reason: see `ToolHandle`). */
  disable(): void;
  /** Replaces parts of the definition; the entry is rebuilt (and re-validated) at once. */
  update(patch: Partial<TDefinition>): void;
  remove(): void;
}

interface Slot<TDefinition, TEntry> {
  definition: TDefinition;
  entry: TEntry;
  enabled: boolean;
  /** Why it is disabled, when it was given a reason. */
  reason: string | undefined;
}

/** Told of each change: the entry added, updated, enabled, disabled or removed, and whether it is listed now. */
export type RegistryListener<TEntry> = (entry: TEntry, listed: boolean) => void;

export class Registry<TDefinition, TEntry> {
  readonly #kind: string;
  readonly #build: (name: string, definition: TDefinition) => TEntry;
  readonly #slots = new Map<string, Slot<TDefinition, TEntry>>();
  readonly #listeners = new Set<RegistryListener<TEntry>>();
  #snapshot: readonly TEntry[] | undefined;
  #version = 0;

  /**
   * @param kind what the entries are, for error messages ("tool", "prompt")
   * @param build turns a definition into the entry the server uses; throws on a bad definition
   */
  constructor(kind: string, build: (name: string, definition: TDefinition) => TEntry) {
    this.#kind = kind;
    this.#build = build;
  }

  /** Increases with every change; caches derived from the snapshot key on it. */
  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#slots.size;
  }

  register(name: string, definition: TDefinition): RegistryHandle<TDefinition> {
    if (this.#slots.has(name)) {
      throw new ServerError(
        LocalErrorCode.DuplicateName,
        `A ${this.#kind} named "${name}" is already registered`,
      );
    }
    const slot: Slot<TDefinition, TEntry> = {
      definition,
      entry: this.#build(name, definition),
      enabled: true,
      reason: undefined,
    };
    this.#slots.set(name, slot);
    this.#changed(slot.entry, true);
    return this.#handle(name, slot);
  }

  /** Whether an entry of that name is registered (enabled or not). */
  has(name: string): boolean {
    return this.#slots.has(name);
  }

  /** The enabled entry of that name. */
  get(name: string): TEntry | undefined {
    const slot = this.#slots.get(name);
    return slot?.enabled ? slot.entry : undefined;
  }

  /** A disabled entry of that name that was given a reason, with the reason. */
  away(name: string): { entry: TEntry; reason: string } | undefined {
    const slot = this.#slots.get(name);
    return slot && !slot.enabled && slot.reason !== undefined
      ? { entry: slot.entry, reason: slot.reason }
      : undefined;
  }

  /** Enabled entries in registration order; the same array until the next change. */
  list(): readonly TEntry[] {
    this.#snapshot ??= Object.freeze([...this.#slots.values()].filter((s) => s.enabled).map((s) => s.entry));
    return this.#snapshot;
  }

  onChange(listener: RegistryListener<TEntry>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(entry: TEntry, listed: boolean): void {
    this.#version++;
    this.#snapshot = undefined;
    for (const listener of this.#listeners) listener(entry, listed);
  }

  #handle(name: string, slot: Slot<TDefinition, TEntry>): RegistryHandle<TDefinition> {
    const live = () => this.#slots.get(name) === slot;
    const assertLive = (action: string) => {
      if (!live()) {
        throw new ServerError(
          LocalErrorCode.InvalidDefinition,
          `Cannot ${action} ${this.#kind} "${name}": it was removed`,
        );
      }
    };
    const setEnabled = (enabled: boolean, action: string, reason?: string) => {
      assertLive(action);
      if (reason !== undefined && typeof reason !== 'string') {
        throw new ServerError(
          LocalErrorCode.InvalidDefinition,
          `Cannot disable ${this.#kind} "${name}": its reason must be a string`,
        );
      }
      slot.reason = enabled ? undefined : reason;
      if (slot.enabled === enabled) return;
      slot.enabled = enabled;
      this.#changed(slot.entry, enabled);
    };
    return {
      name,
      get enabled() {
        return live() && slot.enabled;
      },
      get removed() {
        return !live();
      },
      enable: () => setEnabled(true, 'enable'),
      disable: (reason?: string) => setEnabled(false, 'disable', reason),
      update: (patch) => {
        assertLive('update');
        const definition = { ...slot.definition, ...patch };
        slot.entry = this.#build(name, definition);
        slot.definition = definition;
        this.#changed(slot.entry, slot.enabled);
      },
      remove: () => {
        if (!live()) return;
        this.#slots.delete(name);
        this.#changed(slot.entry, false);
      },
    };
  }
}
