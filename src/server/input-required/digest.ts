/**
 * The byte-level helpers of `requestState`: canonical JSON (sorted keys, so equal values digest
 * equally whatever their key order), SHA-256 digests and base64url. Web Crypto and `btoa`/`atob` only,
 * so the server layer runs in browsers and edge runtimes as well as Node.
 * @module
 */
import { canonicalJson } from '../../protocol/canonical-json.js';

export { canonicalJson };

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * Decodes base64url without padding; undefined for anything else, including non-canonical spellings
 * (unused trailing bits set), so that no two strings decode to the same bytes.
 */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return base64url(bytes) === text ? bytes : undefined;
}

/** SHA-256 of a value's canonical JSON, base64url (43 characters). */
export async function digest(value: unknown): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', utf8(canonicalJson(value)));
  return base64url(new Uint8Array(hash));
}
