/**
 * What one call may leave in a call log store (memory or Redis, the same for both): its arguments and its
 * result each up to a cap of UTF-8 bytes of JSON (`maxArgumentsBytes`, `maxResultBytes`; 256 KiB each by
 * default), beyond which the record keeps none of them and says so (`argumentsDropped: 'too-large'`,
 * `resultDropped: 'too-large'`), and its error (the message its caller got instead of a result) cut to the
 * result's cap. So a store of `maxCalls` calls holds at most `maxCalls` × (both caps) of them: 250 MiB at the
 * defaults, where 4 MiB arguments (the HTTP body cap) and 4 MiB results made it 4 GiB.
 * @module
 */

export const DEFAULT_CALL_LOG_MAX_RESULT_BYTES = 256 * 1024;
export const DEFAULT_CALL_LOG_MAX_ARGUMENTS_BYTES = 256 * 1024;

/** The UTF-8 length of `text`, measured only when its length alone cannot tell whether it is over `cap`. */
export function overBytes(text: string, cap: number): boolean {
  // One UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4).
  if (text.length > cap) return true;
  if (text.length * 3 <= cap) return false;
  return Buffer.byteLength(text, 'utf8') > cap;
}

/** `value`'s JSON when it is at most `cap` UTF-8 bytes, else undefined. */
export function jsonWithin(value: unknown, cap: number): string | undefined {
  const json = JSON.stringify(value);
  return overBytes(json, cap) ? undefined : json;
}

/** A call's error as kept: the whole message when its JSON is at most `cap` UTF-8 bytes, else cut to fit. */
export function boundedError(error: string, cap: number): string {
  if (!overBytes(JSON.stringify(error), cap)) return error;
  const mark = ' … (cut)';
  // The quotes take 2 bytes, the mark 10. A character takes 1 to 6 bytes of JSON: halving until it fits
  // reads at most twice the room in all, and keeps at least half as much as fits.
  let room = Math.max(0, cap - 12);
  while (room > 0 && overBytes(JSON.stringify(error.slice(0, room) + mark), cap)) room = Math.floor(room / 2);
  return error.slice(0, room) + mark;
}
