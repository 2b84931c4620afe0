/**
 * What a resource reader may return, and its normal form: a `resources/read` result.
 *
 * @example
 * ```ts
 * server.resource('file:///notes.txt', { name: 'notes', mimeType: 'text/plain' }, () => 'text');
 * server.resource('file:///logo.png', { name: 'logo', mimeType: 'image/png' }, () => pngBytes);
 * server.resourceTemplate('db://rows/{id}', { name: 'row' }, (uri, { id }) => {
 *   const row = rows.get(id);
 *   if (!row) throw resourceNotFound(uri);
 *   return [{ uri, mimeType: 'application/json', text: JSON.stringify(row) }];
 * });
 * ```
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ResourceContents } from '../../protocol/types/content.js';
import type { ReadResourceResult } from '../../protocol/types/resources.js';
import { toBase64 } from '../results.js';

/** Contents as a reader may write them: `uri` defaults to the URI read, `blob` may be raw bytes. */
export type ResourceContentsInput = { uri?: string; mimeType?: string; _meta?: JsonObject } & (
  { text: string } | { blob: string | Uint8Array }
);

/**
 * Text (a string), bytes (a Uint8Array), one or several contents, or a whole result. A string or bytes
 * take the resource's `mimeType`.
 */
export type ResourceReturn =
  | string
  | Uint8Array
  | ResourceContentsInput
  | ResourceContentsInput[]
  | { contents: ResourceContentsInput[]; _meta?: JsonObject };

/**
 * The -32002 error of an unknown resource (2024-11-05 … 2025-11-25), for readers to throw; its `data.uri`
 * is `uri` cut as an echo of the caller's input is (to 200 characters and "…").
 */
export function resourceNotFound(uri: string): ProtocolError {
  return new ProtocolError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: echoedName(uri) });
}

function contentsOf(value: unknown, uri: string): ResourceContents {
  if (!isJsonObject(value))
    throw new TypeError(`Resource ${uri}: read returned contents that are not objects`);
  const out = { uri: typeof value.uri === 'string' ? value.uri : uri } as ResourceContents;
  if (typeof value.mimeType === 'string') out.mimeType = value.mimeType;
  if (typeof value.text === 'string') (out as { text: string }).text = value.text;
  else if (typeof value.blob === 'string' || value.blob instanceof Uint8Array)
    (out as { blob: string }).blob = toBase64(value.blob, `Resource ${uri}: read returned a blob that`);
  else throw new TypeError(`Resource ${uri}: read returned contents without text or blob`);
  if (isJsonObject(value._meta)) out._meta = value._meta;
  return out;
}

/**
 * Normalizes what a reader returned; a TypeError (-32603 on the wire, reported through the server's
 * `onResourceBug`: see `reportedBug`) for anything else.
 */
export function toReadResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  const typed = mimeType === undefined ? {} : { mimeType };
  if (typeof value === 'string') return { contents: [{ uri, ...typed, text: value }] };
  if (value instanceof Uint8Array) return { contents: [{ uri, ...typed, blob: toBase64(value) }] };
  if (Array.isArray(value)) return { contents: value.map((c) => contentsOf(c, uri)) };
  if (isJsonObject(value) && Array.isArray(value.contents)) {
    const result: ReadResourceResult = { contents: value.contents.map((c) => contentsOf(c, uri)) };
    if (isJsonObject(value._meta)) result._meta = value._meta;
    return result;
  }
  if (isJsonObject(value)) return { contents: [contentsOf(value, uri)] };
  throw new TypeError(`Resource ${uri}: read returned ${value === null ? 'null' : typeof value}`);
}
