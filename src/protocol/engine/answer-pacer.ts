/**
 * When the requests a peer has read start, paced by the bytes of their answers: one connection must not
 * make the process hold (or spend its turn producing) more answers than its reader takes. Requests that
 * arrive together (a stdio chunk of pipelined lines, a JSON-RPC batch) start a wave at a time, one wave
 * per turn of the event loop, each wave sized by the answers this connection has been getting; none
 * starts while the transport's backlog of unread output is full. The rest wait, in order, and the
 * transport is told to read no more meanwhile.
 * @module
 */
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc.js';
import type { Transport } from '../transport.js';

/**
 * Bytes of answers a wave may be expected to produce: the requests one turn starts are as many as answers
 * of the size seen lately fit in it. Producing an answer costs time in proportion to its size (sanitizing,
 * serializing, writing), so this bounds a turn's work too: 1 MiB of tool output is ≈5–10 ms here.
 */
export const ANSWER_BYTES_PER_TURN = 1024 * 1024;
/**
 * The most requests a turn starts, however small their answers: far above what arrives in a turn (a stdio
 * transport delivers 64 lines a turn), so a connection whose answers are small never waits.
 */
export const MAX_WAVE = 1024;
/**
 * Answers are taken to be this large until some arrive (halved at the first turn): the first wave of a
 * connection is 2 requests, and with small answers the waves double each turn up to {@link MAX_WAVE}.
 */
const FIRST_ESTIMATE = ANSWER_BYTES_PER_TURN;
/** What an answer is taken to be at least. */
const MIN_ESTIMATE = 256;

/** The answers of one JSON-RPC batch, held until the last of them is ready. */
export class BatchAnswers {
  bytes = 0;
}

/** A request read and not started yet. */
export interface Waiting {
  readonly message: JsonRpcRequest;
  readonly batch: BatchAnswers | undefined;
  /** The request of ours whose response stream brought it (`MessageExtra.relatedRequestId`). */
  readonly related: RequestId | undefined;
  /**
   * Takes its answer once it started and was answered, or was refused (undefined: taken out of the line,
   * nothing to answer). A lone request's is the engine's own `respond`, called as a started request's
   * is (after the same promise hops): a request read later and started at once cannot overtake it.
   */
  readonly resolve: (response: JsonRpcResponse | undefined) => void;
  /** Characters of its params' JSON, where the engine counts them (`PeerOptions.admitWaiting`), else 0. */
  readonly bytes: number;
  /** Taken out of the line (cancelled) before its turn. */
  gone: boolean;
}

/**
 * Starts a waiting request (or refuses it); says whether it started, so counts against the wave.
 */
export type StartWaiting = (waiting: Waiting) => boolean;

export class AnswerPacer {
  /**
   * Bytes an answer of this connection is taken to have: the largest of the last turn with answers, or
   * more — it halves each turn toward that.
   */
  #estimate = FIRST_ESTIMATE;
  /** The largest answer of the turn `#turn`. */
  #largest = 0;
  #turn = -1;
  /** Requests started in the turn `#turn`. */
  #started = 0;
  readonly #line: Waiting[] = [];
  #head = 0;
  readonly #byId = new Map<RequestId, Waiting>();
  #scheduled = false;
  #holding = false;
  /** Bytes of the answers held for this connection's unfinished batches. */
  heldBytes = 0;
  #waitingBytes = 0;

  constructor(
    private readonly start: StartWaiting,
    private readonly transport: () => Transport | undefined,
  ) {}

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#byId.size;
  }

  /** Characters of the params of the requests waiting (as each was counted: see {@link Waiting.bytes}). */
  get waitingBytes(): number {
    return this.#waitingBytes;
  }

  /** Whether a request with this id waits. */
  has(id: RequestId): boolean {
    return this.#byId.has(id);
  }

  /**
   * Whether a request that just arrived may start now: nothing waits before it, the reader keeps up and
   * this turn's wave has room. When it may, it is counted as started.
   */
  tryStart(): boolean {
    if (this.#byId.size > 0 || this.#backedUp()) return false;
    // The clock ticks only once a wave is full: a request that arrives alone (a client that sends one
    // at a time, as most do) costs no turn of the loop of its own (a `setImmediate` each made the loop
    // poll once more per request).
    this.#sync(turns);
    const wave = this.#wave();
    if (this.#started >= wave) {
      currentTurn();
      return false;
    }
    this.#started += 1;
    if (this.#started >= wave) currentTurn();
    return true;
  }

  /**
   * Puts a request in line; `resolve` takes its answer (see {@link Waiting.resolve}), `bytes` is what it
   * counts for in {@link waitingBytes}.
   */
  wait(
    message: JsonRpcRequest,
    batch: BatchAnswers | undefined,
    resolve: (response: JsonRpcResponse | undefined) => void,
    related?: RequestId,
    bytes = 0,
  ): void {
    const waiting: Waiting = { message, batch, related, resolve, bytes, gone: false };
    this.#line.push(waiting);
    this.#byId.set(message.id, waiting);
    this.#waitingBytes += bytes;
    if (!this.#holding) {
      this.#holding = true;
      this.transport()?.holdInput?.(true);
    }
    this.#schedule();
  }

  /** An answer of `bytes` was produced: later waves are sized by it. */
  answered(bytes: number): void {
    if (bytes > this.#largest) this.#largest = bytes;
    if (bytes > this.#estimate) this.#estimate = bytes;
  }

  /** Takes a waiting request out of the line (it was cancelled); returns it, or undefined. */
  take(id: RequestId): Waiting | undefined {
    const waiting = this.#byId.get(id);
    if (!waiting) return undefined;
    waiting.gone = true;
    this.#byId.delete(id);
    this.#waitingBytes -= waiting.bytes;
    if (this.#byId.size === 0) this.#emptied();
    return waiting;
  }

  /** Takes every waiting request out of the line, in order. */
  takeAll(): Waiting[] {
    const all = this.#line.slice(this.#head).filter((waiting) => !waiting.gone);
    for (const waiting of all) waiting.gone = true;
    this.#byId.clear();
    this.#emptied();
    return all;
  }

  /** The transport's backlog came down, or a batch's answers left: what waits may go on. */
  resume(): void {
    if (this.#byId.size > 0) this.#schedule();
  }

  #backedUp(): boolean {
    return this.transport()?.backlog?.full ?? false;
  }

  #wave(): number {
    return Math.max(1, Math.min(MAX_WAVE, Math.floor(ANSWER_BYTES_PER_TURN / this.#estimate)));
  }

  /** A new turn: nothing started in it yet, and the estimate halves toward what answers are now. */
  #sync(turn: number): void {
    if (turn === this.#turn) return;
    this.#turn = turn;
    this.#started = 0;
    this.#estimate = Math.max(MIN_ESTIMATE, this.#largest, this.#estimate >>> 1);
    this.#largest = 0;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#pump);
  }

  readonly #pump = (): void => {
    this.#scheduled = false;
    if (this.#byId.size === 0 || this.#backedUp()) return; // `resume` comes with the drain
    // A turn of its own (the shared clock may tick after it in this phase of the loop).
    this.#turn = -1;
    this.#sync(currentTurn());
    const wave = this.#wave();
    while (this.#head < this.#line.length && this.#started < wave && !this.#backedUp()) {
      const next = this.#line[this.#head]!;
      this.#head += 1;
      if (next.gone) continue;
      next.gone = true;
      this.#byId.delete(next.message.id);
      this.#waitingBytes -= next.bytes;
      if (this.start(next)) this.#started += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#line.length) {
      this.#line.splice(0, this.#head);
      this.#head = 0;
    }
    if (this.#byId.size === 0) this.#emptied();
    else if (!this.#backedUp()) this.#schedule();
  };

  #emptied(): void {
    this.#line.length = 0;
    this.#waitingBytes = 0;
    this.#head = 0;
    if (!this.#holding) return;
    this.#holding = false;
    this.transport()?.holdInput?.(false);
  }
}

/**
 * The event loop's turns, counted by one shared `setImmediate` while anyone asks: what one synchronous run
 * of deliveries (and its microtasks) starts is one turn's wave. Turns nobody asked for are not counted: a
 * wave may then take in requests of several turns, which only makes it fill sooner.
 */
let turns = 0;
let ticking = false;

function currentTurn(): number {
  if (!ticking) {
    ticking = true;
    setImmediate(tick);
  }
  return turns;
}

function tick(): void {
  ticking = false;
  turns += 1;
}
