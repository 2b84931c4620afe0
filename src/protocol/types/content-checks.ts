/**
 * The shape checks of content blocks, for both ends: the members each content type of the spec requires
 * (`text.text`; `image` / `audio` `data` and `mimeType`; `resource.resource.uri` with `text` or `blob`;
 * `resource_link` `uri` and `name`), no deeper. Every revision's blocks are among these five types
 * (2024-11-05 has text, image and resource). A server sends no other; a client keeps a block of a type it
 * does not know, as a newer revision may add types. What a toolwire peer sends or receives is checked
 * further: its binary data must be base64 (`dataProblem`, `resourceContentsProblem`).
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';

/**
 * Standard base64 (RFC 4648 §4) with its padding: one character class, no group repeated (irregexp backtracks
 * through a repeated group with a stack that a 16 MB string overflows), so linear time and flat memory.
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Whether `value` is standard base64 text, padded and canonical (what the spec's `@format byte` fields hold):
 * the bits a padded quantum leaves over are zero (§3.5), so one string stands for one byte sequence (`QQ==` is
 * "A"; `QR==`, which a lenient decoder also reads as "A", is refused).
 */
export function isBase64(value: string): boolean {
  if (value.length % 4 !== 0 || !BASE64.test(value)) return false;
  if (value.endsWith('==')) return 'AQgw'.includes(value.charAt(value.length - 3));
  if (value.endsWith('=')) return 'AEIMQUYcgkosw048'.includes(value.charAt(value.length - 2));
  return true;
}

function media(block: JsonObject): string | undefined {
  return typeof block.data === 'string' && typeof block.mimeType === 'string'
    ? undefined
    : `an ${String(block.type)} block without a string data and mimeType`;
}

const CONTENT_TYPES = new Map<string, (block: JsonObject) => string | undefined>(
  Object.entries({
    text: (block) => (typeof block.text === 'string' ? undefined : 'a text block without a string text'),
    image: media,
    audio: media,
    resource: (block) => {
      const resource = block.resource;
      if (!isJsonObject(resource) || typeof resource.uri !== 'string') {
        return 'a resource block without a resource.uri';
      }
      return typeof resource.text === 'string' || typeof resource.blob === 'string'
        ? undefined
        : 'an embedded resource without text or blob';
    },
    resource_link: (block) =>
      typeof block.uri === 'string' && typeof block.name === 'string'
        ? undefined
        : 'a resource_link block without a string uri and name',
  }),
);

/** Whether `type` is one of the spec's content block types. */
export function isContentType(type: string): boolean {
  return CONTENT_TYPES.has(type);
}

/**
 * What is wrong with a block of a content type the spec defines (a required member missing or of the wrong
 * type), or undefined. A block of any other type is not checked here: see {@link isContentType}.
 */
export function contentBlockProblem(block: JsonObject & { type: string }): string | undefined {
  return CONTENT_TYPES.get(block.type)?.(block);
}

/**
 * The binary data found base64 here, by the object that holds it (an image's or audio's block, an embedded
 * resource): a block checked once and held on is not checked again while it holds the same text — a
 * gateway's server sends the blocks its client received and checked (≈2–5 ms per MiB each time). Strings are
 * compared by content (at once when they are the same string), so data replaced by other text is checked
 * anew. Weak: it holds nothing a block does not. Data shorter than `MEMO_FLOOR` is checked each time: a
 * check of under ≈2 µs costs less than an entry in a weak map (each one work for every garbage collection).
 */
const checkedData = new WeakMap<object, string>();
const MEMO_FLOOR = 1_024;

/**
 * Whether `data`, the binary data `holder` holds (a block's `data`, a resource's `blob`), is base64 (see
 * {@link isBase64}): checked once for as long as `holder` holds the same text.
 */
export function isCheckedBase64(holder: object, data: string): boolean {
  if (data.length < MEMO_FLOOR) return isBase64(data);
  if (checkedData.get(holder) === data) return true;
  if (!isBase64(data)) return false;
  checkedData.set(holder, data);
  return true;
}

/**
 * What is wrong with the binary data of a well-formed block we send or receive (an image's or audio's
 * `data`, an embedded resource's `blob`): not base64 (RFC 4648, padded), as the spec's `@format byte` asks.
 * Time linear in the data, once per block and text (see `checkedData`). Undefined for a block that holds
 * none.
 */
export function dataProblem(block: JsonObject & { type: string }): string | undefined {
  if (block.type === 'image' || block.type === 'audio')
    return isCheckedBase64(block, block.data as string)
      ? undefined
      : `an ${block.type} block whose data is not base64 (RFC 4648, padded)`;
  if (block.type !== 'resource') return undefined;
  const resource = block.resource as JsonObject;
  const { blob } = resource;
  return typeof blob !== 'string' || isCheckedBase64(resource, blob)
    ? undefined
    : 'an embedded resource whose blob is not base64 (RFC 4648, padded)';
}

/**
 * What is wrong with one of the `contents` of a `resources/read` result (a resource's text or binary
 * contents: a string `uri` with a string `text` or a `blob` of base64, RFC 4648, padded), as the rest of a
 * sentence ("is …"); undefined when nothing is. Time linear in the blob.
 */
export function resourceContentsProblem(contents: unknown): string | undefined {
  if (!isJsonObject(contents) || typeof contents.uri !== 'string')
    return 'is not an object with a string uri';
  if (typeof contents.blob === 'string')
    return isBase64(contents.blob) ? undefined : 'has a blob that is not base64 (RFC 4648, padded)';
  return typeof contents.text === 'string' ? undefined : 'has no string text or blob';
}

/**
 * What is wrong with `block` as a content block a server sends (one of the spec's content types, with the
 * members it requires, its binary data base64), as the rest of a sentence ("has type …", "is a text block
 * without …"); undefined when nothing is.
 */
export function blockProblem(block: unknown): string | undefined {
  if (!isJsonObject(block) || typeof block.type !== 'string') return 'is not an object with a string type';
  if (!isContentType(block.type)) return `has type ${JSON.stringify(block.type)}, which is no content type`;
  const typed = block as JsonObject & { type: string };
  const problem = contentBlockProblem(typed) ?? dataProblem(typed);
  return problem === undefined ? undefined : `is ${problem}`;
}
