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
 *
 * Numbers JSON cannot carry are refused (exit 2, naming the argument), in a pair or in `--args`: one too
 * large to be finite (`1e400` parses as Infinity, which JSON.stringify sends as `null`), and an integer
 * beyond 2^53 (`12345678901234567890` would be sent as `12345678901234567000`, another number): a number
 * here is a JavaScript number, and sending its digits exactly would need a JSON writer of our own. Where
 * the property allows a string (a union with `string`, or no declared type), such a pair is the string
 * as written instead: exact, and what an id of that size usually is.
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

/**
 * The `arguments` of the tools/call: `--args`, then each pair's value as the input schema types it.
 * Throws a usage error (exit 2) for a pair whose number JSON cannot carry (see the module's notes).
 */
export function buildToolArguments(
  input: ToolArgumentsInput,
  inputSchema?: unknown,
  helpHint?: string,
): JsonObject {
  const properties =
    isJsonObject(inputSchema) && isJsonObject(inputSchema.properties) ? inputSchema.properties : {};
  const args: JsonObject = { ...input.base };
  for (const [key, raw] of input.pairs) {
    const value = coerceValue(raw, properties[key]);
    if (value !== raw) refuseLostNumbers(`${key}=${raw}`, raw, value, helpHint);
    setArgument(args, key, value);
  }
  return args;
}

/**
 * Sets `args[key]` as an own member, whatever the key: `__proto__=…` is an argument named `__proto__`,
 * as in `--args '{"__proto__":…}'`, not the object's prototype (which JSON.stringify would not send).
 */
export function setArgument(args: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
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
  // Its digits are what was meant: the string keeps them, where one is allowed.
  if (parsed.ok && (types.length === 0 || types.includes('string')) && unsafeInteger(raw)) return raw;
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
  refuseLostNumbers('--args', text, parsed, helpHint);
  return parsed;
}

/** JSON text's strings (skipped) and numbers. */
const JSON_TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The first integer written in JSON text that is beyond 2^53 (a JSON number would not keep it). */
function unsafeInteger(text: string): string | undefined {
  for (const [token] of text.matchAll(JSON_TOKENS)) {
    if (token.startsWith('"') || /[.eE]/.test(token)) continue;
    if (!Number.isSafeInteger(Number(token))) return token;
  }
  return undefined;
}

/** Whether a parsed JSON value holds a number that is not finite (walked without recursion). */
function holdsNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'number' && !Number.isFinite(item)) return true;
    if (typeof item === 'object' && item !== null)
      for (const member of Object.values(item)) stack.push(member);
  }
  return false;
}

/** A usage error when JSON `text` (parsed: `value`) holds a number the wire would change (`what` names it). */
function refuseLostNumbers(what: string, text: string, value: unknown, helpHint: string | undefined): void {
  const big = unsafeInteger(text);
  const why = holdsNonFinite(value)
    ? 'a number too large to be finite (JSON has no Infinity: it would be sent as null)'
    : big === undefined
      ? undefined
      : `${big}, an integer beyond 2^53 - 1 (it would be sent as ${String(Number(big))}); quote it where the tool takes a string`;
  if (why === undefined) return;
  throw usageError(`${abbreviate(what)}: ${why}`, helpHint, {
    code: 'INVALID_ARGUMENTS',
    detail: 'Nothing was run.',
  });
}

function abbreviate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
