/**
 * How a peer is set up: its default timeout, the era-dependent answers it needs from its session
 * (batches, ids of unreadable requests), the handlers it dispatches through, and the limits on what one
 * connection may ask at once. One options object may serve many peers (a server's sessions): its hooks
 * are told which peer's connection they are called for.
 * @module
 */
import type { ProtocolError } from '../errors.js';
import type { JsonRpcRequest } from '../jsonrpc.js';
import type { Handlers } from './handlers.js';

export interface PeerOptions<C = unknown> {
  /**
   * @internal The handlers to dispatch through (default: a table of this peer's own, filled by
   * `setRequestHandler`).
   */
  handlers?: Handlers<C>;
  /** Default timeout for outgoing requests, in ms. */
  defaultTimeout?: number;
  /**
   * Whether a JSON-RPC batch may be received now (2025-03-26 peers only). `connection`: the peer's
   * (internal; options shared by many peers tell them apart by it).
   */
  acceptBatch?: (connection: C) => boolean;
  /** How to write the id of an error response whose request id could not be read. */
  unknownErrorId?: (connection: C) => null | undefined;
  /**
   * @internal The peer closed (before `onclose`): for options shared by many peers, which need no
   * function of their own each.
   */
  closed?: (connection: C) => void;
  /** @internal An error no request can be told of (before `onerror`); see `closed`. */
  error?: (error: Error, connection: C) => void;
  /** The most messages a JSON-RPC batch may hold; a longer batch gets one -32600 (default 100). */
  maxBatchSize?: number;
  /**
   * The most requests of this connection answered at once; each request past it gets -31429 with
   * `data: { retryAfterMs, limit: 'in-flight' }` at once (default 1000).
   */
  maxRequestsInFlight?: number;
  /**
   * The most bytes (characters of JSON text) of answers this connection's unfinished JSON-RPC batches may
   * hold (a batch is answered as one message, once its last answer is ready): a request of a batch that
   * would start past it is not run and gets -31429 with `data: { retryAfterMs: 0, limit: 'batch-answers' }`
   * (default 8 MiB). What runs already finishes, so a batch holds at most this plus a wave of answers.
   */
  maxBatchAnswerBytes?: number;
  /**
   * @internal Whether a request read while others run may wait in line for its turn (its params are held
   * meanwhile and counted: `bytes`, characters of their JSON; `waiting`, those of the requests in line
   * already): an error returned is its answer at once, and it never runs. Unset: every request may wait,
   * and none is measured (a client sets it: what waits counts against its `maxQuestionBytes`).
   */
  admitWaiting?: (
    message: JsonRpcRequest,
    bytes: number,
    waiting: number,
    connection: C,
  ) => ProtocolError | undefined;
  /**
   * When the transport says the other side sends nothing more (`onend`: a stdio server's stdin ended), how
   * long the requests already read may take to be answered before they are cancelled and the peer closes
   * (default 0: at once).
   */
  endGraceMs?: number;
}

/** The longest JSON-RPC batch a peer takes by default. */
export const DEFAULT_MAX_BATCH_SIZE = 100;

/** The bytes of answers a connection's unfinished batches may hold by default (8 MiB). */
export const DEFAULT_MAX_BATCH_ANSWER_BYTES = 8 * 1024 * 1024;

/** How many requests of one connection a peer answers at once by default. */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 1000;
