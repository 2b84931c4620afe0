/**
 * Completion functions: what a prompt argument or a resource-template variable offers for
 * `completion/complete`, and how their answers become a result (at most 100 values).
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { MAX_COMPLETION_VALUES, type CompleteResult } from '../../protocol/types/prompts.js';
import { ServerError } from '../server-error.js';

export interface CompletionContext {
  /** Values the client has already chosen for the other arguments (from 2025-06-18 clients). */
  readonly arguments: Readonly<Record<string, string>>;
  /** Aborted when the client cancels, the connection closes, or the server shuts down. */
  readonly signal: AbortSignal;
  /** The request's `_meta` (optional here so that a context made by hand, in a test, needs none). */
  readonly meta?: JsonObject | undefined;
}

/** Suggests values for one argument, given what the user typed so far. Filtering is up to it. */
export type Completer = (value: string, context: CompletionContext) => string[] | Promise<string[]>;

/**
 * Checks a `complete` map against the names it may complete and freezes it.
 * @param owner for error messages, e.g. `Prompt "greet"`
 */
export function completersOf(
  owner: string,
  complete: Readonly<Record<string, Completer | undefined>> | undefined,
  names: readonly string[],
): ReadonlyMap<string, Completer> {
  const completers = new Map<string, Completer>();
  for (const [name, completer] of Object.entries(complete ?? {})) {
    if (completer === undefined) continue;
    if (!names.includes(name)) {
      throw new ServerError(
        LocalErrorCode.InvalidDefinition,
        `${owner}: cannot complete "${name}", which is not one of its ${names.length ? names.join(', ') : '(no) arguments'}`,
      );
    }
    if (typeof completer !== 'function') {
      throw new ServerError(
        LocalErrorCode.InvalidDefinition,
        `${owner}: the completion of "${name}" must be a function`,
      );
    }
    completers.set(name, completer);
  }
  return completers;
}

/** Runs a completer (none: no suggestions) and caps its answer at 100 values. */
export async function runCompleter(
  completer: Completer | undefined,
  value: string,
  context: CompletionContext,
): Promise<CompleteResult> {
  const all = completer ? await completer(value, context) : [];
  if (!Array.isArray(all) || !all.every((v) => typeof v === 'string')) {
    throw new TypeError('A completion function must return an array of strings');
  }
  const values = all.slice(0, MAX_COMPLETION_VALUES);
  return { completion: { values, total: all.length, hasMore: all.length > values.length } };
}
