/**
 * The toolwire server: register tools once, serve them on any number of connections.
 *
 * @example
 * ```ts
 * const server = new Server({ name: 'calc', version: '1.0.0' });
 * server.tool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => text(String(a + b)));
 * await server.connect(new StdioServerTransport());
 * ```
 * @module
 */
import type { Transport } from '../protocol/transport.js';
import type { Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import type { SchemaInput } from '../schema/index.js';
import type { TaskStore } from '../stores/task-store.js';
import type { ToolMiddleware } from './middleware/middleware.js';
import type { RequestMiddleware, RequestMiddlewareOptions } from './middleware/request-chain.js';
import type { PromptDefinition, PromptGetter } from './prompts/prompt-definition.js';
import type {
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ResourceTemplateReader,
} from './resources/resource-definition.js';
import type { ServerOptions } from './server-core.js';
import {
  ServerRuntime,
  type ConnectOptions,
  type PromptHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  type SkillHandle,
  type ToolHandle,
} from './server-runtime.js';
import type { ServerConnection } from './session-view.js';
import type { SkillDefinition } from './skills/skill-definition.js';
import type { ToolDefinition, ToolHandler } from './tools/tool-definition.js';

export type {
  ConnectOptions,
  PromptHandle,
  ResourceHandle,
  ResourceTemplateHandle,
  SkillHandle,
  ToolHandle,
} from './server-runtime.js';

/** The internals of a server, for the rest of the package (set in `Server`'s static block). */
let coreOf: (server: Server) => ServerRuntime;

export class Server {
  readonly #core: ServerRuntime;

  static {
    coreOf = (server) => server.#core;
  }

  constructor(info: Implementation, options: ServerOptions = {}) {
    this.#core = new ServerRuntime(info, options);
  }

  /** Who this server is (`serverInfo` in the handshake, `_meta` in the stateless era). */
  get info(): Implementation {
    return this.#core.info;
  }

  /** The options it was made with (with the defaults filled in). */
  get options(): ServerOptions {
    return this.#core.options;
  }

  /** What it declares to clients now (tools, logging, and each feature registered so far). */
  get capabilities(): ServerCapabilities {
    return this.#core.capabilities;
  }

  /** The live connections: a stdio or in-memory connection, each stateful HTTP session, each exchange. */
  get connections(): ReadonlySet<ServerConnection> {
    return this.#core.sessions;
  }

  /** The tasks' store, once tasks are on (`options.tasks`, or a tool declared for tasks). */
  get tasks(): TaskStore | undefined {
    return this.#core.tasks?.store;
  }

  /**
   * Registers a tool. Throws a ServerError for a bad name (`INVALID_DEFINITION`) or a duplicate
   * (`DUPLICATE_NAME`), and a SchemaError for a schema that cannot be used (`INVALID_SCHEMA`: it does not
   * compile, is too deep or too large, or its input root is not an object; `UNSUPPORTED_SCHEMA_DIALECT`).
   * The handler's argument type is inferred from `inputSchema` (zod v4 / Standard Schema, or a JSON
   * Schema literal declared `as const`).
   */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
  ): ToolHandle {
    return this.#core.tool(name, definition, handler);
  }

  /**
   * Adds a tool-call middleware, after the built-ins (audit, rate limits, concurrency caps, timeout,
   * sanitization) and the middleware added before it. It applies to every tool, registered before or
   * after. See `ToolMiddleware`.
   *
   * @example
   * ```ts
   * server.use(async (call, next) => {
   *   const started = Date.now();
   *   const result = await next();
   *   metrics.observe(call.tool.name, Date.now() - started);
   *   return result;
   * });
   * ```
   */
  use(middleware: ToolMiddleware): this {
    this.#core.use(middleware);
    return this;
  }

  /**
   * Adds a request middleware: around every request the server serves (lists, calls, reads, prompts,
   * tasks), in both eras, in the order added; tool calls then go through the tool-call chain too. With
   * `{ methods }`, around the requests of those methods only: the others pass by it at no cost. See
   * `RequestMiddleware`.
   */
  useRequest(middleware: RequestMiddleware, options?: RequestMiddlewareOptions): this {
    this.#core.useRequest(middleware, options);
    return this;
  }

  /**
   * Registers a resource at `uri`. `read` returns text (a string, typed with `mimeType`), bytes, contents
   * or a `{ contents }` result. Throws a ServerError for a URI without a scheme, a duplicate, or a template
   * (use `resourceTemplate`). The first resource or template adds the `resources` capability.
   */
  resource(uri: string, definition: ResourceDefinition, read: ResourceReader): ResourceHandle {
    return this.#core.resource(uri, definition, read);
  }

  /**
   * Registers a family of resources by an RFC 6570 URI template (`file:///{dir}/{name}`, `file://{+path}`); `read`
   * receives the decoded variables. `complete` offers values for variables (`completion/complete`).
   * Resources registered by exact URI win over templates; among templates, the first registered wins.
   */
  resourceTemplate(
    uriTemplate: string,
    definition: ResourceTemplateDefinition,
    read: ResourceTemplateReader,
  ): ResourceTemplateHandle {
    return this.#core.resourceTemplate(uriTemplate, definition, read);
  }

  /**
   * Registers a prompt. `get` receives the arguments (every required one present) and returns messages,
   * a `{ description?, messages }` result, or text. An argument's `complete` offers values for it.
   */
  prompt(name: string, definition: PromptDefinition, get: PromptGetter): PromptHandle {
    return this.#core.prompt(name, definition, get);
  }

  /**
   * Registers a skill (SEP-2640, the skills extension) at `skill://<path>/`: `path` is one or more
   * `/`-separated segments whose last is the skill's name (`git-workflow`, `acme/billing/refunds`), and
   * `definition.files` its files by path from the skill's root, SKILL.md among them. Each file becomes a
   * resource; the server declares the extension (with `directoryRead`) and answers `skills/list`,
   * `skills/get` and `resources/directory/read`. Throws a ServerError for a bad definition
   * (`INVALID_DEFINITION`: a path or name against the rules, no SKILL.md, frontmatter without the skill's
   * name or a description, over 512 files or 16 MiB) or a duplicate (`DUPLICATE_NAME`).
   */
  skill(path: string, definition: SkillDefinition): SkillHandle {
    return this.#core.skill(path, definition);
  }

  /**
   * Sends `notifications/resources/updated` to the sessions subscribed to `uri` (`resources/subscribe`)
   * and on the `subscriptions/listen` streams that asked for it.
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    return this.#core.notifyResourceUpdated(uri);
  }

  /**
   * Serves this server on a transport; resolves once the transport has started. `principal`: who the
   * connection's requests come from, e.g. the user a stdio server runs for (credentials from its
   * environment, as the spec asks of stdio); HTTP transports authenticate each request themselves.
   */
  connect(transport: Transport, options: ConnectOptions = {}): Promise<ServerConnection> {
    return this.#core.connect(transport, options);
  }

  /**
   * Ends every `subscriptions/listen` stream gracefully (its request gets its response), aborts every
   * running tool call and closes every session. With `graceMs`, the sessions first take no new requests
   * and the running ones get that long to finish (those still running then are cancelled and answered
   * with -32603); a second `close()` meanwhile ends the wait.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    return this.#core.close(options);
  }
}

/** @internal A server's internals (its registries, sessions and handler table), for the rest of the package. */
export function serverCore(server: Server): ServerRuntime {
  return coreOf(server);
}
