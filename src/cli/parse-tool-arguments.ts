/**
 * Tool arguments from the command line: `--args '{"a":1}'` and/or `key=value` pairs.
 * A value is parsed as JSON when it parses (`n=5` is a number, `flag=true` a boolean,
 * `tags='["a","b"]'` an array); otherwise it is the string as written (`text=hello`).
 * Pairs override keys of `--args`.
 * @module
 */
import { isJsonObject, type JsonObject } from '../protocol/index.js';
import { usageError } from './exit-code.js';

/** Builds the `arguments` object of a tools/call; throws a usage error (exit 2) on bad input. */
export function parseToolArguments(
  argsJson: string | undefined,
  pairs: readonly string[],
  helpHint: string,
): JsonObject {
  const args: JsonObject = argsJson === undefined ? {} : parseArgsJson(argsJson, helpHint);
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw usageError(
        `expected key=value, got "${pair}" (put the server command after "--", JSON in --args)`,
        helpHint,
      );
    }
    args[pair.slice(0, eq)] = parseValue(pair.slice(eq + 1));
  }
  return args;
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

/** JSON when it parses, else the raw string. */
export function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function abbreviate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
