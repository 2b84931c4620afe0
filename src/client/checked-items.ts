/**
 * The one check a client makes of a result's list of items (a prompt's `messages`, a resource's `contents`):
 * an array, each item of which passes the item check.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { ClientError } from './client-error.js';

/**
 * Checks `result[key]`, the items of what `method` returned for `subject` (`prompts/get` of the prompt
 * named `subject`): a ClientError INVALID_RESULT when it is no array (`details: { result }`), or at the
 * first item `problemOf` finds wrong (`details: { [subjectKey]: subject, index, problem, result }`).
 * An index loop: no iterator and no entry per item, and nothing built unless an item is wrong (every
 * relayed read passes here).
 */
export function checkItems(
  result: JsonObject,
  key: string,
  problemOf: (item: unknown) => string | undefined,
  method: string,
  subjectKey: string,
  subject: string,
): void {
  const items = result[key];
  if (!Array.isArray(items)) {
    throw new ClientError(LocalErrorCode.InvalidResult, `${method} ${subject} returned no ${key} array`, {
      details: { result },
    });
  }
  for (let index = 0; index < items.length; index++) {
    const problem = problemOf(items[index]);
    if (problem === undefined) continue;
    throw new ClientError(
      LocalErrorCode.InvalidResult,
      `${method} ${subject} returned an invalid result: ${key}[${index}] ${problem}`,
      { details: { [subjectKey]: subject, index, problem, result } },
    );
  }
}
