/**
 * What sessions keep of their clients, shared: one frozen `clientInfo` and `capabilities` object per JSON
 * text, for the sessions a handshake opens and those taken up from a shared record alike.
 * @module
 */
import { keepNewest } from '../protocol/keep-newest.js';
import type { ClientCapabilities, Implementation } from '../protocol/types/lifecycle.js';

/**
 * What sessions keep of their clients (`clientInfo`, `capabilities`): one frozen object per JSON text,
 * shared by every session that sent the same (most clients of a server are a few programs): ≈140 B less
 * per session. At most `INTERNED_MAX` of each kind (the oldest leaves), none larger than `INTERNED_TEXT`.
 */
class Interned<T extends object> {
  readonly #byText = new Map<string, T>();

  get(value: T): T {
    const text = JSON.stringify(value);
    const kept = this.#byText.get(text);
    if (kept !== undefined) return kept;
    if (text.length > INTERNED_TEXT) return value;
    this.#byText.set(text, deepFreeze(value));
    keepNewest(this.#byText, INTERNED_MAX);
    return value;
  }
}

const INTERNED_MAX = 256;
const INTERNED_TEXT = 2048;

/** A JSON value frozen all the way down (parsed JSON: no cycles). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

const clientInfos = new Interned<Implementation>();
const clientCapabilities = new Interned<ClientCapabilities>();

/** The shared frozen copy of a client's `clientInfo` (see `Interned`). */
export function internClientInfo(info: Implementation): Implementation {
  return clientInfos.get(info);
}

/** The shared frozen copy of a client's `capabilities` (see `Interned`). */
export function internCapabilities(capabilities: ClientCapabilities): ClientCapabilities {
  return clientCapabilities.get(capabilities);
}
