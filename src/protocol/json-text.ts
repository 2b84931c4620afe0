/**
 * JSON text of immutable results, computed once and spliced into every message that carries them.
 * A page of a 1000-tool `tools/list` is ≈28 KB of JSON, the same for every request of every session
 * until the registry changes; serializing it again for each request was most of the server's work.
 *
 * Marking is transparent: a marked result is still a plain frozen object (middleware, the in-memory
 * transport and tests read it as usual); only the serializer below looks the text up.
 * @module
 */

/** Marked results: '' until first serialized, then their JSON text. */
const texts = new WeakMap<object, string>();

/**
 * Marks a result to be serialized once, on its first serialization, and freezes it with the lists it
 * holds. What those lists hold must be immutable already (registered tools, resources and prompts are
 * frozen at registration).
 */
export function serializeOnce<T extends object>(result: T): T {
  for (const value of Object.values(result)) if (Array.isArray(value)) Object.freeze(value);
  texts.set(Object.freeze(result), '');
  return result;
}

/** Whether `result` was marked by {@link serializeOnce} (so it is frozen, and its text is kept). */
export function isSerializedOnce(result: object): boolean {
  return texts.has(result);
}

/** The length of a marked result's JSON text, once it was serialized; undefined before, or when not marked. */
export function knownJsonLength(result: object): number | undefined {
  return texts.get(result)?.length || undefined;
}

/** The JSON text of a marked result (computed and kept on first use); undefined when not marked. */
function textOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  let text = texts.get(result);
  if (text === '') texts.set(result, (text = JSON.stringify(result)));
  return text;
}

/**
 * The one message serialized ahead of its send (see {@link serializeAhead}), and its text: one slot, no
 * map, taken by the next {@link stringifyJson} of that very object.
 */
let aheadMessage: object | undefined;
let aheadText = '';

/**
 * Serializes `message` (as {@link stringifyJson} does) just before it is sent, for the transport's own
 * `stringifyJson` of it to take the text: the engine learns an answer's exact length for the cost of
 * writing it once. Call {@link dropSerializedAhead} once the send returned, so that a transport that
 * serializes later does not find the slot, and nothing outlives the send.
 */
export function serializeAhead(message: object): number {
  const text = stringifyJson(message);
  aheadMessage = message;
  aheadText = text;
  return text.length;
}

/** Empties the slot {@link serializeAhead} filled (taken or not). */
export function dropSerializedAhead(): void {
  aheadMessage = undefined;
  aheadText = '';
}

/**
 * `JSON.stringify` for anything a transport writes: a JSON-RPC message, a batch of them, or any other
 * body. A response whose result is marked by {@link serializeOnce} is spliced from the kept text; the
 * message the engine serialized ahead of its send (`serializeAhead`) is its text.
 */
export function stringifyJson(value: unknown): string {
  if (aheadMessage !== undefined && value === aheadMessage) {
    const text = aheadText;
    dropSerializedAhead();
    return text;
  }
  if (!Array.isArray(value)) return splice(value) ?? JSON.stringify(value);
  const spliced = value.map(splice);
  if (spliced.every((text) => text === undefined)) return JSON.stringify(value);
  // As JSON.stringify writes an array: what has no JSON text (undefined, a function) is `null`.
  const parts = value.map((item: unknown, i) => spliced[i] ?? JSON.stringify(item) ?? 'null');
  return `[${parts.join(',')}]`;
}

/**
 * A result response `{jsonrpc, id, result}` (those keys only) whose result is marked, or a request
 * `{jsonrpc, id, method, params}` whose params' `_meta` is, as text.
 */
function splice(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  if ('params' in message) return spliceRequest(message);
  if (!('result' in message)) return undefined;
  const text = textOf(message.result);
  if (text === undefined) return undefined;
  for (const key in message) if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return undefined;
  const { jsonrpc, id } = message as { jsonrpc?: unknown; id?: unknown };
  if (jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return `{"jsonrpc":"2.0","id":${idText(id)},"result":${text}}`;
}

/**
 * A request whose params' `_meta` is marked (a stateless-era client's `_meta`, the same for all its
 * requests: ≈300 characters of each): the params' other members serialized, the kept text spliced in
 * as the last member. `JSON.stringify` is called for the members' values only: an integer id is written
 * with `String`, method names and keys are kept (≈0.55 → 0.39 µs per `tools/call` request; a single
 * `JSON.stringify` of the other members copied into an object was slower, ≈0.6 µs).
 */
function spliceRequest(message: object): string | undefined {
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const meta = textOf((params as { _meta?: unknown })._meta);
  if (meta === undefined) return undefined;
  for (const key in message) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  }
  const { jsonrpc, id, method } = message as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  if (jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number') || typeof method !== 'string')
    return undefined;
  let members = '';
  for (const key in params) {
    if (key === '_meta') continue;
    // As JSON.stringify writes an object: members without JSON text (undefined, a function) are left out.
    const text = JSON.stringify((params as Record<string, unknown>)[key]) as string | undefined;
    if (text !== undefined) members += `${nameText(key)}:${text},`;
  }
  return `{"jsonrpc":"2.0","id":${idText(id)},"method":${nameText(method)},"params":{${members}"_meta":${meta}}}`;
}

/** A request id's JSON text (a counter's integer, mostly: no `JSON.stringify` call for it). */
function idText(id: string | number): string {
  return typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : JSON.stringify(id);
}

/** The JSON text of method names and params keys, kept for the few a client sends (bounded: it may send any). */
const names = new Map<string, string>();

function nameText(name: string): string {
  let text = names.get(name);
  if (text === undefined) {
    text = JSON.stringify(name);
    if (names.size < 256) names.set(name, text);
  }
  return text;
}
