/**
 * Session records of a stateful HTTP server: who owns a session, which revision it speaks, when it was
 * last used. The live objects (the protocol session and its transport) stay in the process; the record
 * is what a shared store (Redis) can hold for several processes.
 * @module
 */

export interface SessionRecord {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  protocolVersion?: string;
  /** The authenticated principal that opened the session, when there is one. */
  principal?: string;
}

export interface SessionStore {
  create(record: SessionRecord): Promise<void> | void;
  get(id: string): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  update(id: string, patch: Partial<Omit<SessionRecord, 'id'>>): Promise<void> | void;
  delete(id: string): Promise<void> | void;
  /** Ids of sessions not seen since `before` (ms since epoch). */
  idleSince(before: number): Promise<string[]> | string[];
  count(): Promise<number> | number;
}

/** The in-memory default. */
export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, SessionRecord>();

  create(record: SessionRecord): void {
    this.#records.set(record.id, { ...record });
  }

  get(id: string): SessionRecord | undefined {
    const record = this.#records.get(id);
    return record && { ...record };
  }

  update(id: string, patch: Partial<Omit<SessionRecord, 'id'>>): void {
    const record = this.#records.get(id);
    if (record) Object.assign(record, patch);
  }

  delete(id: string): void {
    this.#records.delete(id);
  }

  idleSince(before: number): string[] {
    const out: string[] = [];
    for (const record of this.#records.values()) if (record.lastSeenAt < before) out.push(record.id);
    return out;
  }

  count(): number {
    return this.#records.size;
  }
}
