/**
 * Structured output for a handshake-era peer (2025-06-18, 2025-11-25), whose revision requires an
 * `outputSchema` with `"type": "object"` at the root and an object `structuredContent`.
 *
 * Since 2026-07-28 (SEP-2106) a tool's output may be any JSON value and its `outputSchema` any JSON
 * Schema. The spec names no conversion for older peers (SEP-2106 only requires the serialized JSON in a
 * text block, which `shapeCallResult` guarantees in every revision), so toolwire wraps: the peer sees
 * the schema as `{ type: 'object', properties: { result: <schema> }, required: ['result'] }` and the
 * value as `{ result: <value> }`, which validates against what it saw in `tools/list`. The same
 * convention as the official TypeScript and C# SDKs.
 *
 * A tool is wrapped exactly when its `outputSchema` root is not `"type": "object"` (so the schema in
 * `tools/list` and every result agree); a tool without an `outputSchema` is wrapped per value, when
 * the value is not an object.
 * @module
 */
import type { WireSchema } from '../types/tools.js';

/** The property that holds a wrapped value. */
export const HANDSHAKE_RESULT_KEY = 'result';

const POINTER_ROOT = `#/properties/${HANDSHAKE_RESULT_KEY}`;

/** Keywords whose value is data, never a subschema: nothing inside is a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Keywords whose value maps author-chosen names to subschemas (the names are never keywords). */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a schema object starts a resource of its own: references inside resolve against it. */
function startsResource(schema: Record<string, unknown>): boolean {
  const id = schema.$id;
  return id !== undefined && !(typeof id === 'string' && id.startsWith('#'));
}

/** Whether a handshake-era peer gets this structured output wrapped (see the module comment). */
export function wrapsOutput(outputSchema: WireSchema | undefined, value: unknown): boolean {
  if (outputSchema !== undefined) return outputSchema.type !== 'object';
  return !isObject(value);
}

/** `{ result: value }`. */
export function wrapOutputValue(value: unknown): Record<string, unknown> {
  return { [HANDSHAKE_RESULT_KEY]: value };
}

function movePointer(ref: string): string {
  if (ref === '#') return POINTER_ROOT;
  return ref.startsWith('#/') ? `${POINTER_ROOT}${ref.slice(1)}` : ref;
}

/**
 * Moves same-document JSON Pointers (`#`, `#/…`) under the wrapper's `result` property. Anchors
 * (`#name`) and other documents are left alone, and so is any subtree with its own `$id`. A 2019-09
 * `$recursiveRef: '#'` (beside no `$ref`) becomes the `$ref` it resolves to when the schema is
 * validated on its own.
 */
function moveReferences(node: unknown, inNameMap: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => moveReferences(item, false));
  if (!isObject(node)) return node;
  if (inNameMap) {
    const out: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(node)) out[name] = moveReferences(schema, false);
    return out;
  }
  if (startsResource(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') out[key] = movePointer(value);
    else if (key === '$recursiveRef' && value === '#' && node.$ref === undefined) out.$ref = POINTER_ROOT;
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else out[key] = moveReferences(value, NAME_MAPS.has(key));
  }
  return out;
}

/**
 * `{ type: 'object', properties: { result: schema }, required: ['result'] }`. A root `$schema` moves to
 * the wrapper (the dialect is declared at the document root) and same-document references are
 * re-pointed, so the wrapped schema accepts `{ result: v }` exactly when `schema` accepts `v`.
 */
export function wrapOutputSchema(schema: WireSchema): WireSchema {
  const { $schema, ...inner } = schema;
  const moved = startsResource(inner) ? inner : (moveReferences(inner, false) as Record<string, unknown>);
  const wrapper: WireSchema = {};
  if ($schema !== undefined) wrapper.$schema = $schema;
  wrapper.type = 'object';
  wrapper.properties = { [HANDSHAKE_RESULT_KEY]: moved } as WireSchema['properties'];
  wrapper.required = [HANDSHAKE_RESULT_KEY];
  return wrapper;
}
