/**
 * Reading a stateless-era result (2026-07-28): its `resultType` (absent means `complete`), checked for the
 * method it answers, and the copy handed to the caller without the fields the client consumes itself
 * (`resultType`, the cache hint `ttlMs`/`cacheScope`, the server's info in `_meta`).
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { isJsonObject, setMember, type JsonObject } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import { ClientError } from '../client-error.js';

/** `resultType` of a stateless-era result: absent means `complete` (older servers). */
export function resultTypeOf(result: JsonObject): string {
  return typeof result.resultType === 'string' ? result.resultType : 'complete';
}

/** A ClientError INVALID_RESULT unless the result is `complete` (or, where allowed, `input_required`). */
export function checkResultType(method: string, result: JsonObject, inputRequiredAllowed: boolean): void {
  const type = resultTypeOf(result);
  if (type === 'complete' || (type === 'input_required' && inputRequiredAllowed)) return;
  throw new ClientError(
    LocalErrorCode.InvalidResult,
    type === 'input_required'
      ? `${method} returned an input_required result, which only tools/call, prompts/get and resources/read may`
      : `${method} returned a result of unknown resultType ${JSON.stringify(result.resultType)}`,
    { details: { result } },
  );
}

/**
 * A copy of a complete result without the fields the client consumes: `resultType`, the server's info,
 * and (unless `cacheHint` is false: a task's `ttlMs` is its lifetime) the cache hint.
 */
export function plainResult(result: JsonObject, cacheHint = true): JsonObject {
  // A loop, not a rest pattern and deletes: every stateless-era result passes here.
  const out: JsonObject = {};
  for (const key in result) {
    if (key === 'resultType' || (cacheHint && (key === 'ttlMs' || key === 'cacheScope'))) continue;
    const value = result[key];
    if (key === '_meta' && isJsonObject(value) && META.serverInfo in value) {
      let meta: JsonObject | undefined;
      for (const name in value) if (name !== META.serverInfo) setMember((meta ??= {}), name, value[name]);
      if (meta) out._meta = meta;
      continue;
    }
    setMember(out, key, value);
  }
  return out;
}
