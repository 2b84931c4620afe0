/**
 * The requests in flight on each upstream (calls, parked ones included, prompt gets, resource reads),
 * with the downstream connection each came on (or, a stateless-era request, which has none, the caller
 * that made it where something says so): whose a question is that an upstream asks where nothing on the
 * wire says which of its requests asked it (stdio, an HTTP upstream's standalone stream).
 * @module
 */
import type { ClientHandlers } from '../index.js';
import type { ToolContext } from '../server/index.js';
import { QuestionBudget } from './question-budget.js';

/** A request in flight upstream. */
export interface InFlight {
  /** The caller's connection (`ToolContext.connection`); undefined where there is none (stateless era). */
  readonly connection: object | undefined;
  /**
   * Stateless era, where there is no connection: who made the request, where something says so
   * (`CallsInFlight.callerOf`); requests of one caller are one caller's, as a connection's are.
   */
  readonly caller?: string | undefined;
  /** What relays a question to its caller; undefined where the caller may be asked nothing. */
  readonly handlers: ClientHandlers | undefined;
  /**
   * A handshake-era caller served without a session (`toolwire gateway --stateless`): what it declared went
   * with an `initialize` no session kept, so it is asked nothing, whatever it declared (see `sessionless`).
   */
  readonly sessionless?: boolean;
}

/** An entry of a `Line`: the request, linked to its neighbours. */
interface Node extends InFlight {
  /** Whose the request is: its connection, else its caller; undefined where nothing says. */
  readonly who: object | string | undefined;
  prev: Node | undefined;
  next: Node | undefined;
  removed: boolean;
}

/** One upstream's requests in flight, oldest first. */
interface Line {
  head: Node | undefined;
  tail: Node | undefined;
  size: number;
}

/**
 * A linked list per upstream, not a `Set`: a long-lived hash table whose entries come and go with every call
 * rehashes every few dozen calls, and V8 keeps its old tables (for iterators), whose stale entries hold the
 * calls they name — and all each one reaches — through young-generation collections (see the engine's
 * `SlotMap`). A line is kept once made: one per upstream name.
 */
export class CallsInFlight {
  readonly #byUpstream = new Map<string, Line>();
  /** The questions relayed to the callers of these requests and not answered yet, per caller and upstream. */
  readonly questions = new QuestionBudget();
  readonly #alone: () => boolean;

  /**
   * `alone`: whether the gateway's server has one connection, its one host's (`Gateway.connectHost`,
   * stdio): every request under way then came over it.
   */
  constructor(alone: () => boolean = () => false) {
    this.#alone = alone;
  }

  /**
   * Who made a stateless-era request, which has no connection, where something says so: its principal
   * (`principal:SUBJECT`); else, while the gateway's one host is its server's only connection, that host
   * (`host`). Undefined otherwise: anonymous callers over HTTP are not told apart.
   */
  callerOf(ctx: Pick<ToolContext, 'principal'>): string | undefined {
    if (ctx.principal) return `principal:${ctx.principal.subject}`;
    return this.#alone() ? 'host' : undefined;
  }

  /** Whether the gateway's one host is its server's only connection: a request under way now is that host's. */
  hostAlone(): boolean {
    return this.#alone();
  }

  /** Counts `entry` in flight on `upstream` until the returned function is called. */
  add(upstream: string, entry: InFlight): () => void {
    let line = this.#byUpstream.get(upstream);
    if (!line) this.#byUpstream.set(upstream, (line = { head: undefined, tail: undefined, size: 0 }));
    const node: Node = {
      connection: entry.connection,
      who: entry.connection ?? entry.caller,
      handlers: entry.handlers,
      sessionless: entry.sessionless === true,
      prev: line.tail,
      next: undefined,
      removed: false,
    };
    if (line.tail) line.tail.next = node;
    else line.head = node;
    line.tail = node;
    line.size += 1;
    const owned = line;
    return () => {
      if (node.removed) return;
      node.removed = true;
      if (node.prev) node.prev.next = node.next;
      else owned.head = node.next;
      if (node.next) node.next.prev = node.prev;
      else owned.tail = node.prev;
      node.prev = node.next = undefined;
      owned.size -= 1;
    };
  }

  /**
   * Whose a question of `upstream` is that names no request: the only request in flight there; or, with
   * several, the oldest, when every one came on the same connection, or (stateless era) from the same caller
   * (it is that caller's question, whichever of its requests asked). Undefined when none is in flight, or
   * when they came on different connections (or from callers nothing tells apart): nothing says whose it
   * is, and no other caller may get it.
   */
  owner(upstream: string): InFlight | undefined {
    const line = this.#byUpstream.get(upstream);
    const oldest = line?.head;
    if (!line || !oldest) return undefined;
    if (line.size > 1 && oldest.who === undefined) return undefined;
    for (let node = oldest.next; node; node = node.next) {
      if (node.who !== oldest.who) return undefined;
    }
    return oldest;
  }

  /**
   * Who takes over a question of `upstream` that names no request, relayed as part of a request of
   * `connection` that ended before its caller answered: the handlers of the oldest request in flight there,
   * when every one came on that connection (the question is that caller's whichever of its requests asked,
   * `owner`); undefined otherwise (none is left, or others' requests are in flight there, or there is no
   * connection: the stateless era's requests stand alone).
   */
  heir(upstream: string, connection: object | undefined): ClientHandlers | undefined {
    if (connection === undefined) return undefined;
    const owner = this.owner(upstream);
    return owner?.connection === connection ? owner.handlers : undefined;
  }

  /** Whether a question of `upstream` that names no request is the one in flight with `handlers` (`owner`). */
  isOwner(upstream: string, handlers: ClientHandlers): boolean {
    return this.owner(upstream)?.handlers === handlers;
  }
}
