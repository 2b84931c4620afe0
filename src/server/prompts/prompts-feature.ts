/**
 * The prompts feature of a server: the prompt registry, its pages, `prompts/get` (arguments checked
 * against the declaration, messages shaped per revision) and `notifications/prompts/list_changed`.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import type { Prompt } from '../../protocol/types/prompts.js';
import { Pages, cursorParam } from '../pages.js';
import { Registry } from '../registry.js';
import { ListChanged, type FeatureHost } from '../list-changed.js';
import type { ServerFeature } from '../server-feature.js';
import type { HandlerTable } from '../handler-table.js';
import type { SessionView } from '../session-view.js';
import { isInputRequired } from '../input-required/input-requests.js';
import { askingUrlElicitations } from '../input-required/url-elicitations-asked.js';
import { withInput } from '../context-host.js';
import { reportedBug, type BugReporter } from '../reported-bug.js';
import { AskingContext } from '../request-signal-context.js';
import { buildPrompt, toPromptResult, type PromptSpec, type RegisteredPrompt } from './prompt-definition.js';

function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/** The `arguments` of `prompts/get`: an object of strings, with every required one present. */
function promptArguments(prompt: RegisteredPrompt, value: unknown): Record<string, string> {
  if (value !== undefined && !isJsonObject(value)) throw invalidParams('arguments must be an object');
  const args: Record<string, string> = {};
  for (const [key, v] of Object.entries(value ?? {})) {
    if (typeof v !== 'string') throw invalidParams(`argument "${echoedName(key)}" must be a string`);
    args[key] = v;
  }
  const missing = prompt.required.filter((name) => !Object.hasOwn(args, name));
  if (missing.length > 0) {
    const list = missing.map((m) => `"${m}"`).join(', ');
    throw invalidParams(`prompt "${prompt.name}" needs the argument${missing.length > 1 ? 's' : ''} ${list}`);
  }
  return args;
}

export class PromptsFeature implements ServerFeature {
  readonly prompts = new Registry<PromptSpec, RegisteredPrompt>('prompt', buildPrompt);
  readonly #pages: Pages<RegisteredPrompt, Prompt, 'prompts'>;
  readonly #listChanged: ListChanged;
  readonly #onBug: BugReporter | undefined;

  constructor(host: FeatureHost) {
    this.#onBug = host.onPromptBug;
    this.#pages = new Pages('prompts', host.pageSize, (e, profile) => profile.shapePrompt(e.prompt));
    this.#listChanged = new ListChanged(
      'notifications/prompts/list_changed',
      () => this.prompts.version,
      host,
    );
    this.prompts.onChange(() => this.#listChanged.changed());
  }

  capabilities(): ServerCapabilities {
    return { prompts: { listChanged: true } };
  }

  bind(session: SessionView): void {
    this.#listChanged.bind(session);
  }

  install(handlers: HandlerTable): void {
    handlers.handle(
      'prompts/list',
      ({ params, scope }) => {
        const cursor = cursorParam(params);
        return this.#pages.page(this.prompts.list(), this.prompts.version, scope.profile, cursor);
      },
      { cacheable: true },
    );
    handlers.handle('prompts/get', async ({ params, scope, ctx, session }) => {
      if (typeof params.name !== 'string') throw invalidParams('name must be a string');
      const prompt = this.prompts.get(params.name);
      if (!prompt) throw invalidParams(`unknown prompt "${echoedName(params.name)}"`);
      const args = promptArguments(prompt, params.arguments);
      // The request's own signal, made if the getter reads it: server.close() closes every session, which
      // cancels the requests in flight. (An `AbortSignal.any` with the server's shutdown signal per request
      // kept every request alive through the young-generation collections.)
      const value = await withInput(session, scope, params, 'prompts/get', ctx, (tool) => {
        const get = () => prompt.get(args, new AskingContext(ctx, scope.client, tool));
        // The stateless era has no -32042: a getter's URL elicitations are asked (input_required).
        if (scope.era === 'stateless') return askingUrlElicitations(`prompt ${prompt.name}`, tool, get);
        return Promise.resolve(get());
      });
      if (isInputRequired(value)) return value;
      const result = reportedBug(() => toPromptResult(value, prompt.name), this.#onBug, prompt.name);
      return scope.profile.shapePromptResult(result);
    });
  }

  close(): void {
    this.#listChanged.cancel();
  }
}
