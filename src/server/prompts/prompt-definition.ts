/**
 * What `server.prompt()` accepts, and its normal form: the wire `Prompt` (arguments without their
 * completion functions), the required argument names, the completers and the getter.
 *
 * @example
 * ```ts
 * server.prompt(
 *   'review',
 *   { description: 'Review a file', arguments: [{ name: 'path', required: true, complete: listPaths }] },
 *   ({ path }) => [{ role: 'user', content: text(`Please review ${path}`) }],
 * );
 * ```
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { blockProblem } from '../../protocol/types/content-checks.js';
import type { Icon } from '../../protocol/types/lifecycle.js';
import type { GetPromptResult, Prompt, PromptArgument, PromptMessage } from '../../protocol/types/prompts.js';
import { completersOf, type Completer } from '../completions/completer.js';
import { ServerError } from '../server-error.js';
import type { RequestHandlerContext } from '../request-signal-context.js';

/** A prompt getter's context. */
export type PromptContext = RequestHandlerContext;

/** An argument as declared: the wire fields plus an optional completion function. */
export interface PromptArgumentDefinition extends PromptArgument {
  complete?: Completer;
}

export interface PromptDefinition {
  title?: string;
  description?: string;
  arguments?: PromptArgumentDefinition[];
  icons?: Icon[];
  _meta?: JsonObject;
}

/** Messages, a full result, or plain text (one user message). */
export type PromptReturn = GetPromptResult | PromptMessage[] | string;

export type PromptGetter = (
  args: Record<string, string>,
  ctx: PromptContext,
) => PromptReturn | Promise<PromptReturn>;

/** A definition plus its getter: what the registry stores and `handle.update()` patches. */
export interface PromptSpec extends PromptDefinition {
  get: PromptGetter;
}

export interface RegisteredPrompt {
  readonly name: string;
  /** The full wire form; shaping narrows it per peer. */
  readonly prompt: Prompt;
  readonly argumentNames: readonly string[];
  readonly required: readonly string[];
  readonly completers: ReadonlyMap<string, Completer>;
  readonly get: PromptGetter;
}

function invalid(message: string): ServerError {
  return new ServerError(LocalErrorCode.InvalidDefinition, message);
}

function wireArgument(owner: string, definition: PromptArgumentDefinition): PromptArgument {
  if (typeof definition.name !== 'string' || definition.name.length === 0) {
    throw invalid(`${owner}: every argument needs a name`);
  }
  for (const field of ['title', 'description'] as const) {
    const value: unknown = definition[field];
    if (value !== undefined && typeof value !== 'string') {
      throw invalid(`${owner}: argument "${definition.name}": ${field} must be a string`);
    }
  }
  const required: unknown = definition.required;
  if (required !== undefined && typeof required !== 'boolean') {
    throw invalid(`${owner}: argument "${definition.name}": required must be a boolean`);
  }
  const out: PromptArgument = { name: definition.name };
  if (definition.title !== undefined) out.title = definition.title;
  if (definition.description !== undefined) out.description = definition.description;
  if (definition.required !== undefined) out.required = definition.required;
  return Object.freeze(out);
}

export function buildPrompt(name: string, spec: PromptSpec): RegisteredPrompt {
  const owner = `Prompt "${name}"`;
  if (typeof name !== 'string' || name.length === 0) throw invalid('A prompt needs a name');
  if (typeof spec.get !== 'function') throw invalid(`${owner} needs a get function`);
  for (const field of ['title', 'description'] as const) {
    const value: unknown = spec[field];
    if (value !== undefined && typeof value !== 'string')
      throw invalid(`${owner}: ${field} must be a string`);
  }
  const definitions = spec.arguments ?? [];
  const args = definitions.map((a) => wireArgument(owner, a));
  const argumentNames = args.map((a) => a.name);
  const duplicate = argumentNames.find((n, i) => argumentNames.indexOf(n) !== i);
  if (duplicate !== undefined) throw invalid(`${owner}: the argument "${duplicate}" is declared twice`);
  const completers = completersOf(
    owner,
    Object.fromEntries(definitions.map((a) => [a.name, a.complete])),
    argumentNames,
  );

  const prompt: Prompt = { name };
  if (spec.title !== undefined) prompt.title = spec.title;
  if (spec.description !== undefined) prompt.description = spec.description;
  if (args.length > 0) prompt.arguments = args;
  if (spec.icons !== undefined) prompt.icons = spec.icons;
  if (spec._meta !== undefined) prompt._meta = spec._meta;
  return Object.freeze({
    name,
    prompt: Object.freeze(prompt),
    argumentNames: Object.freeze(argumentNames),
    required: Object.freeze(args.filter((a) => a.required === true).map((a) => a.name)),
    completers,
    get: spec.get,
  });
}

/** What is wrong with the message at `index`, as the rest of a sentence; undefined when nothing is. */
function messageProblem(value: unknown, index: number): string | undefined {
  if (!isJsonObject(value)) return `messages[${index}] is not an object`;
  if (value.role !== 'user' && value.role !== 'assistant') {
    return `messages[${index}] has no role "user" or "assistant"`;
  }
  const problem = blockProblem(value.content);
  return problem === undefined ? undefined : `messages[${index}].content ${problem}`;
}

/**
 * Normalizes what a getter returned; a TypeError (-32603 on the wire, reported through the server's
 * `onPromptBug`: see `reportedBug`) for anything else: no messages, or a message whose content is none of the spec's
 * content blocks (as a tool's result is checked; raw bytes in `data` included: use `image()` / `audio()`).
 */
export function toPromptResult(value: unknown, name: string): GetPromptResult {
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  const raw = (Array.isArray(value) ? { messages: value } : value) as Partial<GetPromptResult> | null;
  if (!raw || !Array.isArray(raw.messages)) {
    throw new TypeError(`Prompt ${name} returned something other than messages ({ role, content })`);
  }
  const messages: unknown[] = raw.messages;
  for (let index = 0; index < messages.length; index++) {
    const problem = messageProblem(messages[index], index);
    if (problem !== undefined) throw new TypeError(`Prompt ${name} returned an invalid result: ${problem}`);
  }
  const result: GetPromptResult = { messages: raw.messages };
  if (typeof raw.description === 'string') result.description = raw.description;
  if (isJsonObject(raw._meta)) result._meta = raw._meta;
  return result;
}
