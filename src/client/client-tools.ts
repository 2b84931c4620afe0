/**
 * The tools side of a client: `tools/list` (every page, cached per era's rules, tools with invalid
 * `x-mcp-header` declarations left out with a warning) and `tools/call`, through the link chain: audit,
 * approval, the application's links, the result checks (size, content blocks, outputSchema), then the
 * request (see `links/client-link.ts`).
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode, ToolwireError } from '../protocol/errors.js';
import { echoedName } from '../protocol/echoed-name.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Implementation } from '../protocol/types/lifecycle.js';
import { validateMcpHeaderDeclarations } from '../protocol/types/mcp-header-declarations.js';
import type { CallToolResult, Tool } from '../protocol/types/tools.js';
import { approvalLink, auditLink } from './approval/index.js';
import { ClientError } from './client-error.js';
import type { CallToolOptions } from './call-tool-options.js';
import { ownMeta } from './request-meta-options.js';
import type { ClientOptions } from './client-options.js';
import type { EraChannel } from './era-channel.js';
import type { ExchangeOptions } from './exchange-options.js';
import { checkToolResult, DEFAULT_MAX_RESULT_BYTES } from './links/check-tool-result.js';
import type { OutgoingToolCall, ToolCallLink } from './links/client-link.js';
import type { LinkChain } from './links/link-chain.js';
import type { ClientTasks } from './tasks/client-tasks.js';
import { TASK_HANDLE, type ToolTask } from './tasks/tool-task.js';
import type { ListLimits } from './follow-pages.js';
import { ToolCache, type LoadOptions } from './tool-cache.js';
import type { UrlElicitations } from './url-elicitations.js';

/** The options of a `callToolAsTask` call: its handle rides along. */
export type TaskCallOptions = CallToolOptions & { [TASK_HANDLE]?: ToolTask };

/** What the tools need from their client. */
export interface ToolsHost {
  /** Sends one request on the client's connection (throws NOT_CONNECTED when it is not). */
  request(method: string, params: JsonObject | undefined, options?: ExchangeOptions): Promise<JsonObject>;
  /** The channel of the era spoken, once connected. */
  channel(): EraChannel | undefined;
  /** The server, as it introduced itself. */
  serverInfo(): Implementation | undefined;
  /** Tool calls that run as tasks. */
  readonly tasks: ClientTasks;
  /** The URL elicitations the server named (a call's -32042 names some). */
  readonly urlElicitations: UrlElicitations;
}

export class ClientTools {
  readonly #cache: ToolCache;
  readonly #host: ToolsHost;
  readonly #options: ClientOptions;
  readonly #links: LinkChain;
  /** The built-in links, outermost first: the audit, then the approval gate. */
  readonly #builtIns: ToolCallLink[] = [];
  readonly #warned = new Set<string>();

  constructor(host: ToolsHost, options: ClientOptions, links: LinkChain, listLimits: ListLimits) {
    this.#host = host;
    this.#options = options;
    this.#links = links;
    this.#cache = new ToolCache(listLimits);
    if (options.onAudit) this.#builtIns.push(auditLink(options.onAudit, (error) => options.onError?.(error)));
    if (options.approval) this.#builtIns.push(approvalLink(options.approval));
  }

  /**
   * The listed tools are stale (the server said so, or the caller asked for a refresh); returns whether they
   * had been listed since the last time.
   */
  invalidate(): boolean {
    this.#host.channel()?.forget('tools/list');
    return this.#cache.invalidate();
  }

  /**
   * Every listed tool. Callers share one fetch, made with no caller's signal or timeout: each waits with its
   * own (`signal`, `cancellation`, `timeout` per response), and giving up fails that caller alone. A caller
   * whose options shape the requests themselves (`onProgress`, `resetTimeoutOnProgress`, …) fetches alone.
   */
  list(options: { refresh?: boolean } & RequestOptions = {}): Promise<readonly Tool[]> {
    const { refresh, signal, cancellation, timeout, ...shaping } = options;
    if (refresh) this.invalidate();
    const load = this.#loadOptions();
    if (Object.values(shaping).some((value) => value !== undefined)) {
      const { refresh: _, ...requestOptions } = options;
      return this.#cache.loadAlone((cursor) => this.#listPage(cursor, requestOptions), load);
    }
    return this.#cache.load(
      (cursor, control) => this.#listPage(cursor, { cancellation: control.cancellation, timeout: Infinity }),
      load,
      { signal, cancellation, timeout: timeout ?? this.#options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT },
    );
  }

  #listPage(cursor: string | undefined, options: RequestOptions): Promise<JsonObject> {
    return this.#host.request('tools/list', cursor === undefined ? {} : { cursor }, options);
  }

  /** How the era spoken keeps the list: until `list_changed` (handshake), or fetched on every call. */
  #loadOptions(): LoadOptions {
    if (this.#host.channel()?.era !== 'stateless') return { memoize: true, emptyCursorEnds: true };
    return { memoize: false, emptyCursorEnds: false, filter: (tool) => this.#validHeaders(tool) };
  }

  call(name: string, args: JsonObject, options: TaskCallOptions): Promise<CallToolResult> {
    // Without links nothing sees the call: no OutgoingToolCall is made for it.
    if (this.#builtIns.length === 0 && !this.#links.hasToolCallLinks) return this.#send(name, args, options);
    let tool: Promise<Tool> | undefined;
    const call: OutgoingToolCall = {
      name,
      arguments: args,
      tool: () => (tool ??= this.#definition(name)),
      server: this.#host.serverInfo(),
      options,
      verdict: { decision: 'allowed', reason: 'no approval policy' },
    };
    return this.#links.toolCall(this.#builtIns, call, this.#sendCall);
  }

  /** The inner end of the links' chain. */
  readonly #sendCall = (call: OutgoingToolCall): Promise<CallToolResult> =>
    this.#send(call.name, call.arguments, call.options, call);

  /** The tool as listed (the cached list, else a fresh one); only its name when the server lists no such tool. */
  async #definition(name: string): Promise<Tool> {
    return (
      this.#cache.get(name) ??
      (await this.list()).find((t) => t.name === name) ?? { name, inputSchema: { type: 'object' } }
    );
  }

  /**
   * The request (as a task where it runs as one), then the result checks. A promise chain, not an async
   * function: every call passes here (no frame kept across the request); a plain call is one `then`
   * (its result checked, or its error turned into the task the server needs).
   */
  #send(
    name: string,
    args: JsonObject,
    options: TaskCallOptions,
    call?: OutgoingToolCall,
  ): Promise<CallToolResult> {
    const tasks = this.#host.tasks;
    const params: JsonObject = { name, arguments: args };
    if (options.meta !== undefined) params._meta = ownMeta(options.meta);
    const wanted =
      (options.task !== undefined && options.task !== false) || options[TASK_HANDLE] !== undefined;
    // A plain call unless a task is asked for or the server speaks tasks in the core form (the tool's
    // definition decides then): decided without waiting for `plan`.
    if (!wanted && tasks.form() !== 'core') {
      return this.#host.request('tools/call', params, options).then(
        (raw) => this.#checked(name, raw, options),
        (error: unknown) => {
          if (!tasks.needsExtension(error)) {
            this.#host.urlElicitations.sawError(error);
            throw error;
          }
          return this.#asTask('extension', params, options).then((raw) => this.#checked(name, raw, options));
        },
      );
    }
    const definition = () => (call ? call.tool() : this.#definition(name));
    return tasks
      .plan(definition, wanted)
      .then((form) => (form ? this.#asTask(form, params, options) : this.#plain(params, options)))
      .then((raw) => this.#checked(name, raw, options));
  }

  /** A plain call's raw result, or (where the server needs the tasks extension for it) its task's. */
  #plain(params: JsonObject, options: TaskCallOptions): Promise<JsonObject> {
    return this.#host.request('tools/call', params, options).catch((error: unknown) => {
      if (!this.#host.tasks.needsExtension(error)) {
        this.#host.urlElicitations.sawError(error);
        throw error;
      }
      return this.#asTask('extension', params, options);
    });
  }

  /** The raw result of the task the call runs as (see `ClientTasks`). */
  #asTask(taskForm: 'core' | 'extension', params: JsonObject, options: TaskCallOptions): Promise<JsonObject> {
    const asked = options.task !== undefined && options.task !== false ? options.task : undefined;
    return this.#host.tasks.call(
      taskForm,
      params,
      typeof asked === 'object' ? asked : {},
      options,
      options[TASK_HANDLE],
      options.onTaskStatus,
    );
  }

  /**
   * A raw result checked (size, content blocks; the outputSchema unless `validateOutput` is false) against
   * the tool's current definition. When the tools were not listed since the last `list_changed` (or ever),
   * structured content waits for the list (fetched once for every call waiting, on the call's own `signal`
   * and `timeout`); a result without any has nothing to check, and costs no listing.
   */
  #checked(
    name: string,
    raw: JsonObject,
    options: CallToolOptions,
  ): CallToolResult | Promise<CallToolResult> {
    const result = this.check(name, raw, options);
    if (options.validateOutput === false || result.isError === true) return result;
    if (this.#cache.listed || result.structuredContent === undefined) {
      this.#cache.checkOutput(name, this.#cache.get(name), result);
      return result;
    }
    const { signal, cancellation, timeout } = options;
    return this.list({ signal, cancellation, timeout }).then(
      (tools) => {
        this.#cache.checkOutput(
          name,
          tools.find((tool) => tool.name === name),
          result,
        );
        return result;
      },
      (error: unknown) => {
        // The call's own signal or timeout ended the wait: the call fails as it would have on the wire.
        if (isWaitEnded(error)) throw error;
        // Structured content no definition could check is not accepted unchecked (as for a refused schema).
        const reason = error instanceof Error ? error.message : String(error);
        throw new ClientError(
          LocalErrorCode.OutputSchemaMismatch,
          `Tool ${name} returned structuredContent that cannot be checked: tools/list failed: ${reason}`,
          { cause: error, details: { result, reason } },
        );
      },
    );
  }

  /** A tool result checked (size, content blocks), or ClientError MESSAGE_TOO_LARGE / INVALID_RESULT. */
  check(name: string, raw: JsonObject, options: CallToolOptions = {}): CallToolResult {
    const limit = options.maxResultBytes ?? this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    return checkToolResult(name, raw, limit, (message, type) => this.#warn(`block:${type}`, message));
  }

  /** Whether a listed tool's `x-mcp-header` declarations are valid; warns (once) about one that is not. */
  #validHeaders(tool: Tool): boolean {
    const problems = validateMcpHeaderDeclarations(tool.inputSchema);
    if (problems.length === 0) return true;
    const message = `Tool ${echoedName(tool.name)} is left out of tools/list: invalid x-mcp-header (${problems.join('; ')})`;
    this.#warn(message, message);
    return false;
  }

  /** Warns once per `key` through `onWarning` (else `onError`). */
  #warn(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    if (this.#options.onWarning) this.#options.onWarning(message);
    else this.#options.onError?.(new ClientError(LocalErrorCode.InvalidDefinition, message));
  }
}

/** The default of `requestTimeout`, in ms. */
const DEFAULT_REQUEST_TIMEOUT = 60_000;

function isWaitEnded(error: unknown): boolean {
  return (
    error instanceof ToolwireError &&
    (error.code === LocalErrorCode.RequestCancelled || error.code === LocalErrorCode.RequestTimeout)
  );
}
