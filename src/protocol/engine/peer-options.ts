/**
 * How a peer is set up: its default timeout, the era-dependent answers it needs from its session
 * (batches, ids of unreadable requests), the gates before dispatch, and the fallback handler.
 * @module
 */
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc.js';
import type { RequestHandler } from './request-context.js';

export interface PeerOptions {
  /** Default timeout for outgoing requests, in ms. */
  defaultTimeout?: number;
  /** Whether a JSON-RPC batch may be received now (2025-03-26 peers only). */
  acceptBatch?: () => boolean;
  /** How to write the id of an error response whose request id could not be read. */
  unknownErrorId?: () => null | undefined;
  /** Called before a request is dispatched; may throw a ProtocolError to refuse it. */
  gate?: (message: JsonRpcRequest) => void;
  /** Called before a notification is dispatched; return false to drop it. */
  gateNotification?: (message: JsonRpcNotification) => boolean;
  /**
   * Handles the requests no handler was set for (e.g. a table of handlers shared by many peers); it
   * throws -32601 itself for a method it does not know. Default: -32601.
   */
  fallback?: RequestHandler;
}
