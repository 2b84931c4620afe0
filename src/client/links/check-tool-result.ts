/**
 * The checks a `tools/call` result passes before any link or caller sees it:
 * - size: the JSON of the result is at most `maxResultBytes` UTF-8 bytes (default 16 MiB); a bigger one
 *   throws ClientError MESSAGE_TOO_LARGE (`details: { tool, bytes, limit }`) and is not returned;
 * - shape: `content` is an array of objects with a string `type`; `isError`, when present, is a boolean;
 *   the blocks of known types carry their fields (`text.text`; `image`/`audio` `data` and `mimeType`;
 *   `resource.resource.uri` with `text` or `blob`; `resource_link` `uri` and `name`), and their binary data
 *   (`image`/`audio` `data`, an embedded `blob`) base64 — RFC 4648, padded, its padding bits zero — as a
 *   toolwire server checks what it sends (`dataProblem`, in time linear in the data). A malformed block
 *   throws ClientError INVALID_RESULT (`details: { tool, index, problem }`). A block of a type this client
 *   does not know is kept as it came (newer revisions add types) and reported once per type through
 *   `onWarning`;
 * - the tool's outputSchema, as before (see `ToolCache.checkOutput`).
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { contentBlockProblem, dataProblem, isContentType } from '../../protocol/types/content-checks.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { ClientError } from '../client-error.js';

/** The default cap on a tool result: 16 MiB of JSON. */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

/**
 * An upper bound of the UTF-8 size of `value`'s JSON, without building it (a result is parsed JSON: no
 * cycles, and the engine refused any message nested too deep), or Infinity once it passes `limit`. A code
 * unit of a string takes at most 6 bytes (a `\uXXXX` escape), a number at most 24 characters.
 */
function jsonBound(value: unknown, limit: number): number {
  let bound = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') bound += 2 + 6 * item.length;
    else if (item === null || typeof item !== 'object') bound += 24;
    else if (Array.isArray(item)) {
      bound += 2 + item.length;
      for (const element of item) pending.push(element);
    } else {
      bound += 2;
      for (const key in item) {
        bound += 4 + 6 * key.length;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
    if (bound > limit) return Infinity;
  }
  return bound;
}

/** The UTF-8 size of `text`, counted without encoding it when its length already decides. */
function utf8Bytes(text: string, limit: number): number {
  if (text.length > limit || text.length * 3 <= limit) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

/**
 * Checks a raw `tools/call` result (size, then shape) and returns it typed. `warn` hears of block types
 * this client does not know.
 */
export function checkToolResult(
  name: string,
  raw: JsonObject,
  maxBytes: number,
  warn: (message: string, type: string) => void,
): CallToolResult {
  // Serialized (once more) only when a bound computed without building the JSON does not settle it.
  if (Number.isFinite(maxBytes) && jsonBound(raw, maxBytes) > maxBytes) {
    const bytes = utf8Bytes(JSON.stringify(raw), maxBytes);
    if (bytes > maxBytes) {
      throw new ClientError(
        LocalErrorCode.MessageTooLarge,
        `tools/call ${name} returned a result of ${bytes} bytes, over the client's limit of ${maxBytes} (maxResultBytes)`,
        { details: { tool: name, bytes, limit: maxBytes } },
      );
    }
  }
  if (!Array.isArray(raw.content)) {
    throw new ClientError(
      LocalErrorCode.InvalidResult,
      `tools/call ${name} returned a result without a content array`,
      { details: { result: raw } },
    );
  }
  if (raw.isError !== undefined && typeof raw.isError !== 'boolean') {
    throw invalid(name, raw, `isError is ${JSON.stringify(raw.isError)}, not a boolean`);
  }
  // An index loop: no iterator and no entry per block (every relayed call passes here).
  const content: unknown[] = raw.content;
  for (let index = 0; index < content.length; index++) {
    const block = content[index];
    if (!isJsonObject(block) || typeof block.type !== 'string') {
      throw invalid(name, raw, `content[${index}] is not an object with a string type`, index);
    }
    if (!isContentType(block.type)) {
      warn(
        `Tool ${name} returned a content block of unknown type ${JSON.stringify(block.type)} (kept)`,
        block.type,
      );
      continue;
    }
    const typed = block as JsonObject & { type: string };
    const problem = contentBlockProblem(typed) ?? dataProblem(typed);
    if (problem) throw invalid(name, raw, `content[${index}] is ${problem}`, index);
  }
  return raw as unknown as CallToolResult;
}

/** ClientError INVALID_RESULT for a result that breaks the shape of a tool result. */
function invalid(name: string, raw: JsonObject, problem: string, index?: number): ClientError {
  return new ClientError(
    LocalErrorCode.InvalidResult,
    `tools/call ${name} returned an invalid result: ${problem}`,
    {
      details: { tool: name, ...(index === undefined ? {} : { index }), problem, result: raw },
    },
  );
}
