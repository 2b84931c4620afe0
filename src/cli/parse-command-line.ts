/**
 * Option parsing shared by the subcommands: `node:util` parseArgs, with usage errors (exit 2)
 * instead of thrown TypeErrors, and the `-- <command...>` split.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from './exit-code.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine<O extends Options> {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];
  /** Arguments before `--` that are not options. */
  positionals: string[];
  /** Everything after the first `--` (undefined when there is no `--`). */
  rest: string[] | undefined;
}

/**
 * Parses `argv` (the arguments after the subcommand name). Options come before `--`;
 * everything after it is returned untouched as `rest`.
 */
export function parseCommandLine<O extends Options>(
  argv: readonly string[],
  options: O,
  helpHint: string,
): CommandLine<O> {
  const split = argv.indexOf('--');
  const before = split === -1 ? [...argv] : argv.slice(0, split);
  const rest = split === -1 ? undefined : argv.slice(split + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: before, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw usageError(cleanParseError(error, before), helpHint);
  }
  refuseRepeated(parsed.tokens, options, helpHint);
  return { values: parsed.values, positionals: parsed.positionals, rest };
}

/**
 * A value option that is not `multiple` given twice (`--tool a --tool b`) is a usage error: parseArgs keeps
 * the last, and a typo would silently call another tool (or drop the first `--args`).
 */
function refuseRepeated(
  tokens: ReadonlyArray<{ kind: string; name?: string; rawName?: string }>,
  options: Options,
  helpHint: string,
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    const option = options[token.name];
    if (option?.type !== 'string' || option.multiple === true) continue;
    if (seen.has(token.name)) throw usageError(`--${token.name} given twice (it takes one value)`, helpHint);
    seen.add(token.name);
  }
}

/**
 * parseArgs messages carry a long tip about `--`; keep the first sentence. A value that starts with a dash
 * (`--timeout -5`) is "ambiguous" to parseArgs, which alone says nothing of what to do: name the option and how
 * to give such a value.
 */
function cleanParseError(error: unknown, args: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const name = ambiguous[1]!;
    const at = args.indexOf(name);
    const next = at === -1 ? undefined : args[at + 1];
    if (next !== undefined) {
      return `${name} needs a value: "${next}" looks like an option (write ${name}=${next} if it is the value)`;
    }
  }
  return message.split('. To specify')[0]?.split('\n')[0] ?? message;
}

/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Parses a positive integer option of milliseconds such as `--timeout 5000`: decimal digits only (not
 * `1e3`, `0x10`, ` 5`), and at most `max` (default {@link MAX_TIMER_MS}: the option is a timer's).
 */
export function parsePositiveInteger(
  value: string | undefined,
  name: string,
  helpHint: string,
  max: number = MAX_TIMER_MS,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed <= 0 || parsed > max) {
    throw usageError(
      `--${name} must be a positive integer of milliseconds, at most ${max}, got "${value}"`,
      helpHint,
    );
  }
  return parsed;
}

/** Whether `argv` asks for help (`-h` / `--help` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  const split = argv.indexOf('--');
  const before = split === -1 ? argv : argv.slice(0, split);
  return before.includes('--help') || before.includes('-h');
}

/**
 * `--session-unload-ms N`: how long an idle copy of a shared session stays in a process (the HTTP
 * handler's `sessionUnloadMs`), or `0` to keep copies (`false`). Undefined when not given.
 */
export function parseSessionUnloadMs(
  value: string | undefined,
  helpHint: string,
): number | false | undefined {
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed >= 2 ** 31) {
    throw usageError(
      `--session-unload-ms must be 0 (keep idle sessions loaded) or a positive integer of milliseconds below 2147483648, got "${value}"`,
      helpHint,
    );
  }
  return parsed === 0 ? false : parsed;
}
