/**
 * The cursors of `TaskStore.list` (2025-11-25 `tasks/list`): a position in one owner's listing, bound to
 * that owner and signed with the store's key (HMAC-SHA256), so that a cursor the store did not issue —
 * made up, altered, or issued to another owner — is refused with an `InvalidTaskCursor` (-32602 on the
 * wire), and a cursor can name no position beyond what the store issued. Format:
 * `<tag><position>.<base64url MAC>`; the tag says which store made it. Web Crypto only, so the memory
 * store runs wherever the server does.
 * @module
 */
/** A `list` cursor the store did not issue (the server answers -32602). */
export class InvalidTaskCursor extends Error {
  override name = 'InvalidTaskCursor';
}

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;
const encoder = new TextEncoder();

/** An HMAC-SHA256 key from `secret` (the bytes a store keeps, or shares with other processes). */
export function cursorKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret, HMAC, false, ['sign', 'verify']);
}

/** A random secret for a cursor key: 32 bytes. */
export function cursorSecret(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** What the MAC covers: the owner and the position, unambiguously. */
function signed(owner: string, position: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(JSON.stringify([owner, position]));
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * The bytes of unpadded base64url text; undefined for anything else, including non-canonical spellings
 * (unused trailing bits set), so that no two cursors are the same one.
 */
function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return base64url(bytes) === text ? bytes : undefined;
}

export class TaskCursors {
  readonly #tag: string;
  readonly #key: () => Promise<CryptoKey>;

  /**
   * @param tag the first character of every cursor of this store
   * @param key the store's signing key (read when a cursor is first issued or opened; may reject)
   */
  constructor(tag: string, key: () => Promise<CryptoKey>) {
    this.#tag = tag;
    this.#key = key;
  }

  /** The cursor for `position` in `owner`'s listing. */
  async issue(owner: string, position: string): Promise<string> {
    const mac = await crypto.subtle.sign(HMAC, await this.#key(), signed(owner, position));
    return `${this.#tag}${position}.${base64url(new Uint8Array(mac))}`;
  }

  /** The position `cursor` names in `owner`'s listing; rejects with `InvalidTaskCursor` unless issued to `owner`. */
  async open(owner: string, cursor: string): Promise<string> {
    const dot = cursor.lastIndexOf('.');
    const mac = dot < 0 ? undefined : fromBase64url(cursor.slice(dot + 1));
    const position = cursor.slice(this.#tag.length, dot);
    if (!cursor.startsWith(this.#tag) || mac === undefined || position === '')
      throw new InvalidTaskCursor(`Unknown cursor ${cursor}`);
    if (!(await crypto.subtle.verify(HMAC, await this.#key(), mac, signed(owner, position))))
      throw new InvalidTaskCursor(`Unknown cursor ${cursor}`);
    return position;
  }
}
