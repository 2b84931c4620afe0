/**
 * The completions feature of a server: `completion/complete` for a prompt's arguments (`ref/prompt`)
 * and a resource template's variables (`ref/resource`). The `completions` capability exists from
 * 2025-03-26 (shaping removes it for older peers); the method is served at every revision.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import type { RegisteredPrompt } from '../prompts/prompt-definition.js';
import type { RegisteredResourceTemplate } from '../resources/resource-definition.js';
import type { ServerFeature } from '../server-feature.js';
import type { HandlerTable } from '../handler-table.js';
import { RequestSignalContext, type SignalSource } from '../request-signal-context.js';
import { runCompleter, type Completer, type CompletionContext } from './completer.js';

/** Where completions come from: the server's prompts and resources, looked up when asked. */
export interface CompletionSources {
  prompt(name: string): RegisteredPrompt | undefined;
  template(uriTemplate: string): RegisteredResourceTemplate | undefined;
  /** Whether a plain resource has this URI (it has nothing to complete). */
  hasResource(uri: string): boolean;
}

function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isJsonObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

export class CompletionsFeature implements ServerFeature {
  readonly #sources: CompletionSources;

  constructor(sources: CompletionSources) {
    this.#sources = sources;
  }

  capabilities(): ServerCapabilities {
    return { completions: {} };
  }

  install(handlers: HandlerTable): void {
    handlers.handle('completion/complete', async ({ params, ctx }) => {
      const { ref, argument } = params;
      if (!isJsonObject(ref)) throw invalidParams('ref must be an object');
      if (
        !isJsonObject(argument) ||
        typeof argument.name !== 'string' ||
        typeof argument.value !== 'string'
      ) {
        throw invalidParams('argument must be { name, value } strings');
      }
      const completer = this.#completer(ref, argument.name);
      const context = new CompleteContext(
        ctx,
        stringRecord(isJsonObject(params.context) ? params.context.arguments : undefined),
      );
      return runCompleter(completer, argument.value, context);
    });
  }

  /** The completer of `name` in what `ref` names (undefined: nothing to suggest); -32602 for unknown refs. */
  #completer(ref: JsonObject, name: string): Completer | undefined {
    if (ref.type === 'ref/prompt') {
      if (typeof ref.name !== 'string') throw invalidParams('ref/prompt needs a name');
      const prompt = this.#sources.prompt(ref.name);
      if (!prompt) throw invalidParams(`unknown prompt "${echoedName(ref.name)}"`);
      if (!prompt.argumentNames.includes(name)) {
        throw invalidParams(`prompt "${ref.name}" has no argument "${echoedName(name)}"`);
      }
      return prompt.completers.get(name);
    }
    if (ref.type === 'ref/resource') {
      if (typeof ref.uri !== 'string') throw invalidParams('ref/resource needs a uri');
      const template = this.#sources.template(ref.uri);
      if (!template) {
        if (this.#sources.hasResource(ref.uri)) return undefined;
        throw invalidParams(`unknown resource template "${echoedName(ref.uri)}"`);
      }
      if (!template.matcher.variables.includes(name)) {
        throw invalidParams(`resource template "${ref.uri}" has no variable "${echoedName(name)}"`);
      }
      return template.completers.get(name);
    }
    throw invalidParams(`unknown ref type ${echoedName(JSON.stringify(ref.type) ?? 'undefined')}`);
  }
}

/** A completer's context: its signal (the request's) is made when first read, see `RequestSignalContext`. */
class CompleteContext extends RequestSignalContext implements CompletionContext {
  readonly arguments: Readonly<Record<string, string>>;
  readonly meta: JsonObject | undefined;

  constructor(
    request: SignalSource & { readonly meta: JsonObject | undefined },
    chosen: Readonly<Record<string, string>>,
  ) {
    super(request);
    this.arguments = chosen;
    this.meta = request.meta;
  }
}
