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
import { LEGACY_REVISIONS, type LegacyRevision } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import type { Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import type { SchemaInput } from '../schema/index.js';
import { Coalescer } from './coalescer.js';
import { Registry, type RegistryHandle } from './registry.js';
import type { ServerCore, ServerFeature, ServerOptions } from './server-core.js';
import { ServerSession } from './server-session.js';
import {
  buildTool,
  type RegisteredTool,
  type ToolDefinition,
  type ToolHandler,
  type ToolSpec,
} from './tool-definition.js';
import { ToolPages } from './tool-pages.js';

export type ToolHandle = RegistryHandle<ToolSpec>;

export class Server implements ServerCore {
  readonly info: Implementation;
  readonly options: ServerOptions;
  readonly versions: readonly LegacyRevision[];
  readonly tools = new Registry<ToolSpec, RegisteredTool>('tool', buildTool);
  readonly toolPages: ToolPages;
  readonly #sessions = new Set<ServerSession>();
  readonly #shutdown = new AbortController();
  readonly #listChanged: Coalescer;
  readonly features: ServerFeature[] = [];

  constructor(info: Implementation, options: ServerOptions = {}) {
    this.info = { ...info };
    this.options = {
      ...options,
      onToolBug: options.onToolBug ?? ((message) => console.error(`[toolwire] ${message}`)),
    };
    this.versions = options.versions?.length ? options.versions : LEGACY_REVISIONS;
    this.toolPages = new ToolPages(options.pageSize ?? 100);
    this.#listChanged = new Coalescer(options.listChangedDebounceMs ?? 10, () => {
      for (const session of this.#sessions) void session.sendToolListChanged().catch(() => undefined);
    });
    this.tools.onChange(() => this.#listChanged.trigger());
  }

  get capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { tools: { listChanged: true }, logging: {} };
    for (const feature of this.features) Object.assign(caps, feature.capabilities());
    return caps;
  }

  get shutdownSignal(): AbortSignal {
    return this.#shutdown.signal;
  }

  /** Live sessions (one per connected transport). */
  get sessions(): ReadonlySet<ServerSession> {
    return this.#sessions;
  }

  /**
   * Registers a tool. Throws a ServerError for a bad name, a duplicate, or a schema that does not compile.
   * The handler's argument type is inferred from `inputSchema` (zod v4 / Standard Schema, or a JSON
   * Schema literal declared `as const`).
   */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    definition: ToolDefinition<I, O>,
    handler: ToolHandler<I, O>,
  ): ToolHandle {
    return this.tools.register(name, { ...definition, handler } as unknown as ToolSpec);
  }

  /** Serves this server on a transport; resolves once the transport has started. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new ServerSession(this, (closed) => this.#sessions.delete(closed));
    this.#sessions.add(session);
    await session.connect(transport);
    return session;
  }

  /** Aborts every running tool call and closes every session. */
  async close(): Promise<void> {
    this.#listChanged.cancel();
    this.#shutdown.abort(new Error('The server is shutting down'));
    await Promise.all([...this.#sessions].map((s) => s.close()));
  }
}
