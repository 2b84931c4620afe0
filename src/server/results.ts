/**
 * Helpers that build content blocks and tool results, one per content type.
 *
 * @example
 * ```ts
 * server.tool('greet', { inputSchema: z.object({ who: z.string() }) }, ({ who }) => text(`Hello, ${who}`));
 * server.tool('stats', { outputSchema }, () => structured({ files: 3, bytes: 1200 }));
 * server.tool('names', { outputSchema: { type: 'array' } }, () => structured(['a', 'b']));
 * ```
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { isBase64 } from '../protocol/types/content-checks.js';
import type {
  Annotations,
  AudioContent,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from '../protocol/types/content.js';
import type { CallToolResult } from '../protocol/types/tools.js';

/** What every content block helper may add: the block's `annotations` and `_meta`. */
export interface BlockOptions {
  annotations?: Annotations;
  _meta?: JsonObject;
}

/**
 * Encodes bytes as base64 without Node's Buffer, so the server layer runs anywhere. A string is taken
 * as base64 already and checked: a TypeError naming `what` if it is not.
 */
export function toBase64(data: Uint8Array | string, what = 'data'): string {
  if (typeof data === 'string') {
    if (!isBase64(data)) throw new TypeError(`${what} is not base64 (RFC 4648, padded): ${preview(data)}`);
    return data;
  }
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < data.length; i += chunk) {
    binary += String.fromCharCode(...data.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** The start of a string, for an error message. */
function preview(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function extras(options: BlockOptions | undefined): BlockOptions {
  if (!options) return {};
  const out: BlockOptions = {};
  if (options.annotations) out.annotations = options.annotations;
  if (options._meta) out._meta = options._meta;
  return out;
}

export function text(value: string, options?: BlockOptions): TextContent {
  return { type: 'text', text: value, ...extras(options) };
}

/** An image; `data` is raw bytes or a base64 string. */
export function image(data: Uint8Array | string, mimeType: string, options?: BlockOptions): ImageContent {
  return { type: 'image', data: toBase64(data, 'image() data'), mimeType, ...extras(options) };
}

/** Audio (a 2024-11-05 peer receives it as an embedded blob resource). */
export function audio(data: Uint8Array | string, mimeType: string, options?: BlockOptions): AudioContent {
  return { type: 'audio', data: toBase64(data, 'audio() data'), mimeType, ...extras(options) };
}

/** A link to a resource (older peers receive it as text). */
export function resourceLink(link: Omit<ResourceLink, 'type'>): ResourceLink {
  return { type: 'resource_link', ...link };
}

/** An embedded resource with text or binary (`blob`: raw bytes or base64) contents. */
export function embeddedResource(
  resource: { uri: string; mimeType?: string; _meta?: JsonObject } & (
    { text: string } | { blob: Uint8Array | string }
  ),
  options?: BlockOptions,
): EmbeddedResource {
  const contents =
    'text' in resource
      ? { ...resource }
      : {
          ...resource,
          blob: toBase64((resource as { blob: Uint8Array | string }).blob, 'embeddedResource() blob'),
        };
  return { type: 'resource', resource: contents, ...extras(options) };
}

/** A result with these content blocks. */
export function toolResult(...content: ContentBlock[]): CallToolResult<never> {
  return { content };
}

/**
 * A structured result: `structuredContent` plus its JSON as a text block for clients that read only
 * `content` (a SHOULD for objects, a MUST for other values). The value may be any JSON value: an
 * object, an array, a string, a number, a boolean or `null` (SEP-2106, 2026-07-28; a 2025-06-18 /
 * 2025-11-25 client receives a non-object value as `{ result: value }`). Extra blocks follow the
 * JSON text.
 *
 * @example
 * ```ts
 * server.tool('tags', { outputSchema: { type: 'array', items: { type: 'string' } } as const }, () =>
 *   structured(['a', 'b']),
 * );
 * ```
 */
export function structured<T>(value: T, ...more: ContentBlock[]): CallToolResult<T> {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new TypeError(`structured() needs a JSON value, not ${typeof value}`);
  return { content: [text(json), ...more], structuredContent: value };
}

/** A tool execution error the model can read and correct (`isError: true`). */
export function toolError(message: string, ...more: ContentBlock[]): CallToolResult<never> {
  return { content: [text(message), ...more], isError: true };
}
