/**
 * Tool arguments from the command line: `--args '{"a":1}'` and/or `key=value` pairs (pairs override keys
 * of `--args`). A pair's value follows the tool's input schema for that key:
 *
 * | the property's `type`         | `key=5`   | `key=true` | `key=hello`           |
 * | ----------------------------- | --------- | ---------- | --------------------- |
 * | `string`                      | `"5"`     | `"true"`   | `"hello"`             |
 * | `number` / `integer`          | `5`       | `"true"` (the schema check then refuses it) | `"hello"` (refused) |
 * | `boolean`                     | `"5"` (refused) | `true` | `"hello"` (refused) |
 * | anything else, or no schema   | JSON when it parses (`5`, `true`, `["a"]`), else the string |
 *
 * A union that allows a string keeps the string unless the JSON value is of another type it allows.
 * @module
 */
import { isJsonObject, type JsonObject } from '../protocol/index.js';
import { usageError } from './exit-code.js';

/** The arguments as given, before the tool's schema is known. */
export interface ToolArgumentsInput {
  /** From `--args` (or `{}`). */
  base: JsonObject;
  /** `key=value` pairs, in order, the value as written. */
  pairs: Array<[key: string, raw: string]>;
}

/** Checks the syntax of `--args` and the pairs; throws a usage error (exit 2) on bad input. */
export function parseToolArguments(
  argsJson: string | undefined,
  pairs: readonly string[],
  helpHint: string,
): ToolArgumentsInput {
  const base: JsonObject = argsJson === undefined ? {} : parseArgsJson(argsJson, helpHint);
  const split = pairs.map((pair): [string, string] => {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw usageError(
        `expected key=value, got "${pair}" (put the server command after "--", JSON in --args)`,
        helpHint,
      );
    }
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
  return { base, pairs: split };
}

/** The `arguments` of the tools/call: `--args`, then each pair's value as the input schema types it. */
export function buildToolArguments(input: ToolArgumentsInput, inputSchema?: unknown): JsonObject {
  const properties =
    isJsonObject(inputSchema) && isJsonObject(inputSchema.properties) ? inputSchema.properties : {};
  const args: JsonObject = { ...input.base };
  for (const [key, raw] of input.pairs) args[key] = coerceValue(raw, properties[key]);
  return args;
}

/** JSON types a JSON value has, as a schema's `type` names them. */
function jsonTypes(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** One `key=value` value, typed by the property's schema (see the module's table). */
export function coerceValue(raw: string, schema: unknown): unknown {
  const declared = isJsonObject(schema) ? schema.type : undefined;
  const types = Array.isArray(declared)
    ? declared.filter((t): t is string => typeof t === 'string')
    : typeof declared === 'string'
      ? [declared]
      : [];
  if (types.length === 1 && types[0] === 'string') return raw;
  const parsed = parseJson(raw);
  if (types.length === 0) return parsed.ok ? parsed.value : raw;
  if (parsed.ok && jsonTypes(parsed.value).some((t) => types.includes(t))) return parsed.value;
  return raw;
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

function parseArgsJson(text: string, helpHint: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw usageError(`--args is not valid JSON (${reason}): ${abbreviate(text)}`, helpHint);
  }
  if (!isJsonObject(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed;
    throw usageError(`--args must be a JSON object like '{"key":"value"}', got ${kind}`, helpHint);
  }
  return parsed;
}

function abbreviate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
