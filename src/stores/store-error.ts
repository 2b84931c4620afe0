/**
 * Local errors of the stores: a shared store (Redis) that cannot be reached, answers too late, or fails.
 * Every method of a Redis store rejects with a `StoreError` then, never hangs past the connection's
 * command timeout; a server maps it to "try again later" (HTTP 503 with `Retry-After`), telling the peer
 * which store and operation failed (`details: { store, operation }`) but not why: the message (Redis's
 * reply, the connection's state and address) is for the server's `onError`.
 * @module
 */
import { LocalErrorCode, ToolwireError, errorMessage } from '../protocol/errors.js';

export class StoreError extends ToolwireError {
  override name = 'StoreError';
}

/**
 * Runs one store operation, turning whatever it throws (a refused connection, a command timeout, a
 * reply error) into a `StoreError` that names the store and the operation, with the cause attached;
 * `explain` may say more (what state the connection is in).
 */
export async function storeOperation<T>(
  store: string,
  operation: string,
  run: () => Promise<T>,
  explain?: () => string | undefined,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    const why = explain?.();
    throw new StoreError(
      LocalErrorCode.StoreUnavailable,
      `${store}: ${operation} failed: ${why ? `${why}: ` : ''}${errorMessage(error)}`,
      { cause: error, details: { store, operation } },
    );
  }
}
