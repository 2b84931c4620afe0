/**
 * A name a peer sent, as an error message echoes it back: cut to {@link MAX_ECHOED_NAME} characters with
 * "…" after it, so a request whose method is 1 MiB long is not answered with 1 MiB of message.
 * @module
 */

/** The most characters of a peer's name an error message repeats. */
export const MAX_ECHOED_NAME = 200;

/**
 * `name` itself when it has at most {@link MAX_ECHOED_NAME} characters, else its first ones and "…" (a
 * UTF-16 surrogate pair is never split). Reads no more of `name` than it keeps.
 */
export function echoedName(name: string): string {
  if (name.length <= MAX_ECHOED_NAME) return name;
  let end = MAX_ECHOED_NAME;
  const last = name.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // a high surrogate whose low half is cut off
  return `${name.slice(0, end)}…`;
}
