/**
 * The one wire shape of "a shared store failed, try again later": a local `StoreUnavailable` error (a
 * Redis store that could not be reached, answered too late, or failed) answers a request with -32603,
 * a message saying `Service Unavailable: ` and which store and operation failed (the error's
 * `details: { store, operation }`; never why — Redis's reply, a script's SHA, where Redis is — which is the
 * server's `onError`'s to hear), and `data: { reason: 'store_unavailable', retryAfterMs }`; the HTTP
 * transport sends it with status 503 and `Retry-After`. Whatever request met it (a session's, a
 * `tools/call` whose rate limit or task lives in the store) gets the same answer.
 * @module
 */
import { ErrorCode, LocalErrorCode, ToolwireError, type ErrorObject } from './errors.js';

/** How long a client is told to wait after a store failed (Redis reconnects within a second). */
export const STORE_RETRY_AFTER_MS = 1000;

/** The `data.reason` of a store-unavailable JSON-RPC error. */
export const STORE_UNAVAILABLE_REASON = 'store_unavailable';

/** Whether `error` is a shared store's failure (the stores' `StoreError`, or any local error of that code). */
export function isStoreFailure(error: unknown): error is ToolwireError {
  return error instanceof ToolwireError && error.code === LocalErrorCode.StoreUnavailable;
}

/**
 * What a peer is told of a store's failure: which store and which operation (`Redis task store: get
 * failed`), from the error's `details`; `a shared store failed` when it does not say.
 */
export function storeFailureSummary(error: ToolwireError): string {
  const details = error.details as { store?: unknown; operation?: unknown } | undefined;
  return typeof details?.store === 'string' && typeof details.operation === 'string'
    ? `${details.store}: ${details.operation} failed`
    : 'a shared store failed';
}

/** The JSON-RPC error object for a store that failed with `error` (naming the store, not the cause). */
export function storeUnavailableError(error: ToolwireError): ErrorObject {
  return {
    code: ErrorCode.InternalError,
    message: `Service Unavailable: ${storeFailureSummary(error)}`,
    data: { reason: STORE_UNAVAILABLE_REASON, retryAfterMs: STORE_RETRY_AFTER_MS },
  };
}

/** Whether a JSON-RPC message is a store-unavailable error (sent with status 503 over HTTP). */
export function isStoreUnavailable(message: unknown): boolean {
  const error = (message as { error?: { code?: unknown; data?: { reason?: unknown } } } | undefined)?.error;
  return error?.code === ErrorCode.InternalError && error.data?.reason === STORE_UNAVAILABLE_REASON;
}
