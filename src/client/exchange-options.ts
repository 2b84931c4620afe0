/**
 * How one request of the client is sent, in either era: the engine's request options plus what an
 * exchange adds (`input_required` rounds, the request's own handlers), and the function that sends it.
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { ClientHandlers } from './client-handlers.js';

export interface ExchangeOptions extends RequestOptions {
  /** `input_required` results answered before giving up with TOO_MANY_INPUT_ROUNDS (default 8). */
  maxInputRounds?: number;
  /**
   * Handlers for this request's own input requests (elicitation, sampling, roots), tried before the
   * client's: the `inputRequests` of its `input_required` results (stateless era), and the server's
   * requests that belong to it (handshake era): those on its POST response stream (Streamable HTTP), those
   * that name the task it made (2025-11-25), else those that come while it is the only request in flight
   * with handlers of its own (a request the client cannot attribute to one of several such requests goes to
   * the client's handlers). A task's questions are the call's in the 2026-07-28 extension too. A gateway
   * uses them to relay an upstream's questions to the caller that made the call.
   */
  handlers?: ClientHandlers;
}

/** Sends one request on the client's connection, through its links, in the era spoken. */
export type Requester = (
  method: string,
  params: JsonObject | undefined,
  options?: ExchangeOptions,
) => Promise<JsonObject>;
