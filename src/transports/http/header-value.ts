/**
 * Header values of the 2026-07-28 Streamable HTTP binding (`Mcp-Name`, `Mcp-Param-*`). A value that is
 * not a plain header value (non-ASCII, control characters, leading or trailing whitespace, empty) travels
 * as `=?base64?{Base64 of its UTF-8}?=`; so does a plain value that itself looks like that sentinel. The
 * markers are lowercase and case-sensitive. Web-standard only (`btoa`, `TextEncoder`).
 * @module
 */

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Visible ASCII, space and horizontal tab: what RFC 9110 allows in a field value. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function looksEncoded(value: string): boolean {
  return value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length >= PREFIX.length + SUFFIX.length;
}

/** Whether `value` may be sent as it is. */
export function isPlainHeaderValue(value: string): boolean {
  if (value.length === 0 || looksEncoded(value)) return false;
  if (/^[\t ]|[\t ]$/.test(value)) return false;
  return FIELD_VALUE.test(value);
}

/** The header form of `value`: itself when plain, else the Base64 sentinel. */
export function encodeHeaderValue(value: string): string {
  if (isPlainHeaderValue(value)) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${PREFIX}${btoa(binary)}${SUFFIX}`;
}

/**
 * The value a received header carries (the sentinel decoded), or `undefined` when the header holds
 * characters a field value may not, or a sentinel whose payload is not canonical Base64 of UTF-8.
 */
export function decodeHeaderValue(header: string): string | undefined {
  if (!FIELD_VALUE.test(header)) return undefined;
  if (!looksEncoded(header)) return header;
  const payload = header.slice(PREFIX.length, header.length - SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
