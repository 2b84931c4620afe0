/**
 * The upstreams' tools as tools of the gateway's server, under their namespaced names: title,
 * description, schemas, annotations, icons (of safe schemes: safe-icons.ts) and `_meta` as the upstream
 * lists them. Kept in step with each
 * upstream (and its 2025-11-25 `execution.taskSupport`, see `definitionOf`): a new tool is registered, a
 * changed one updated, a vanished one removed; a down upstream's
 * tools are disabled (out of `tools/list`, which the server announces with `list_changed`) and enabled
 * again when it is back, and so are the tools a person hid. A name that two tools would share is a clear
 * error: the second is not exposed, and a warning names both.
 * @module
 */
import { errorMessage, type JsonObject, type Tool } from '../index.js';
import type { Server, ToolContext, ToolDefinition, ToolHandle, ToolHandler } from '../server/index.js';
import { withSafeIcons } from './safe-icons.js';
import type { ToolNamer } from './tool-namer.js';
import { unavailable, type Upstream } from './upstream.js';

export interface ExposedTool {
  /** The namespaced name callers use. */
  readonly name: string;
  readonly upstream: Upstream;
  /** The tool as the upstream lists it (its own name). */
  tool: Tool;
  readonly handle: ToolHandle;
}

/** Runs a call of an exposed tool (the gateway's policy, approvals and relay). */
export type ExposedToolCall = (
  entry: ExposedTool,
  args: JsonObject,
  ctx: ToolContext,
) => ReturnType<ToolHandler>;

/**
 * The exposed tool's definition, the upstream's schemas included: the gateway checks a call's arguments
 * against the upstream's `inputSchema` before its policy and approvals see them (a person approves
 * arguments that fit the tool), as every toolwire server does, and the upstream checks them again.
 */
function definitionOf(tool: Tool): ToolDefinition<JsonObject, JsonObject> {
  const definition: ToolDefinition<JsonObject, JsonObject> = {
    inputSchema: tool.inputSchema as JsonObject,
  };
  if (tool.title !== undefined) definition.title = tool.title;
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.outputSchema !== undefined) definition.outputSchema = tool.outputSchema as JsonObject;
  if (tool.annotations !== undefined) definition.annotations = tool.annotations;
  const { icons } = withSafeIcons(tool);
  if (icons !== undefined) definition.icons = icons;
  if (tool._meta !== undefined) definition._meta = tool._meta;
  // An upstream task tool (2025-11-25) is one downstream too — 'optional' even where the upstream requires
  // a task: the gateway runs a plain call as a task upstream.
  const support = tool.execution?.taskSupport;
  if (support === 'optional' || support === 'required') definition.task = 'optional';
  return definition;
}

/** The fields a listing shows, for telling whether a tool changed. */
function sameTool(a: Tool, b: Tool): boolean {
  return JSON.stringify(definitionOf(a)) === JSON.stringify(definitionOf(b));
}

export class ExposedTools {
  readonly #server: Server;
  readonly #call: ExposedToolCall;
  readonly #warn: (upstream: Upstream, message: string) => void;
  readonly #byName = new Map<string, ExposedTool>();
  /** Warnings already given, so that each problem is told once per upstream connection. */
  readonly #warned = new Set<string>();
  readonly #hidden: (upstream: Upstream, tool: string) => boolean;
  #namer: ToolNamer;

  constructor(
    server: Server,
    namer: ToolNamer,
    call: ExposedToolCall,
    warn: (upstream: Upstream, message: string) => void,
    hidden: (upstream: Upstream, tool: string) => boolean = () => false,
  ) {
    this.#server = server;
    this.#namer = namer;
    this.#call = call;
    this.#warn = warn;
    this.#hidden = hidden;
  }

  /** Every exposed tool, enabled or not (hidden, or its upstream down). */
  all(): ExposedTool[] {
    return [...this.#byName.values()];
  }

  /** The exposed tool of that name (enabled or not). */
  get(name: string): ExposedTool | undefined {
    return this.#byName.get(name);
  }

  /** The names callers can use now (ready upstreams only). */
  names(): string[] {
    return [...this.#byName.values()].filter((entry) => entry.handle.enabled).map((entry) => entry.name);
  }

  /** Names tools differently from now on (existing tools are renamed by the next `sync` of each upstream). */
  rename(namer: ToolNamer): void {
    this.#namer = namer;
  }

  /** Brings the upstream's exposed tools in line with its status and its latest list. */
  sync(upstream: Upstream): void {
    const mine = new Map(
      [...this.#byName.values()].filter((e) => e.upstream === upstream).map((e) => [e.name, e]),
    );
    if (upstream.status !== 'ready') {
      // Out of the list, and a call of one is told why (by the server, with no middleware per call).
      const reason = unavailable(upstream);
      for (const entry of mine.values()) entry.handle.disable(reason);
      return;
    }
    const kept = new Set<string>();
    for (const tool of upstream.tools) {
      const named = this.#namer.name(upstream.prefix, tool.name);
      if (!named.ok) {
        this.#tell(upstream, `tool ${tool.name} is not exposed: ${named.reason}`);
        continue;
      }
      const existing = this.#byName.get(named.name);
      if (existing && (existing.upstream !== upstream || kept.has(named.name))) {
        const other = existing.upstream === upstream ? 'its' : `upstream ${existing.upstream.name}'s`;
        this.#tell(
          upstream,
          `tool ${tool.name} is not exposed: its name ${named.name} is taken by ${other} tool ${existing.tool.name} (give the upstream another prefix)`,
        );
        continue;
      }
      kept.add(named.name);
      if (existing) this.#update(existing, tool);
      else this.#register(upstream, named.name, tool);
    }
    for (const [name, entry] of mine) {
      if (kept.has(name)) continue;
      entry.handle.remove();
      this.#byName.delete(name);
    }
  }

  /** Removes every tool of an upstream (it was removed from the configuration). */
  drop(upstream: Upstream): void {
    for (const [name, entry] of this.#byName) {
      if (entry.upstream !== upstream) continue;
      entry.handle.remove();
      this.#byName.delete(name);
    }
    for (const key of this.#warned) if (key.startsWith(`${upstream.name}\u0000`)) this.#warned.delete(key);
  }

  #register(upstream: Upstream, name: string, tool: Tool): void {
    let handle: ToolHandle;
    const entry = { name, upstream, tool } as { -readonly [K in keyof ExposedTool]: ExposedTool[K] };
    try {
      handle = this.#server.tool(name, definitionOf(tool), (args, ctx) =>
        this.#call(entry, args as JsonObject, ctx),
      );
    } catch (error) {
      this.#tell(upstream, `tool ${tool.name} is not exposed: ${errorMessage(error)}`);
      return;
    }
    entry.handle = handle;
    if (this.#hidden(upstream, tool.name)) handle.disable();
    this.#byName.set(name, entry);
  }

  #update(entry: ExposedTool, tool: Tool): void {
    if (!sameTool(entry.tool, tool)) {
      try {
        const { inputSchema, outputSchema, ...rest } = definitionOf(tool);
        entry.handle.update({
          title: undefined,
          description: undefined,
          annotations: undefined,
          icons: undefined,
          _meta: undefined,
          task: undefined,
          inputSchema,
          outputSchema,
          ...rest,
        });
      } catch (error) {
        this.#tell(entry.upstream, `tool ${tool.name} keeps its old definition: ${errorMessage(error)}`);
        return;
      }
      entry.tool = tool;
    }
    if (this.#hidden(entry.upstream, tool.name)) entry.handle.disable();
    else entry.handle.enable();
  }

  #tell(upstream: Upstream, message: string): void {
    const key = `${upstream.name}\u0000${message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#warn(upstream, message);
  }
}
