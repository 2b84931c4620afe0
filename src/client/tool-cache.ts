/**
 * The client's view of a server's tools: every page fetched (with a cap against endless cursors) and
 * compiled output validators per tool. In the handshake era the list is kept until `list_changed`; in the
 * stateless era every `listTools()` walks the pages again, each page coming from the result cache while
 * its `ttlMs` says it is fresh.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { CallToolResult, Tool, WireSchema } from '../protocol/types/tools.js';
import { SchemaError, compileJsonSchema, formatIssues, type Validator } from '../schema/index.js';
import { ClientError } from './client-error.js';
import { followPages, type ListLimits, type PageFetcher } from './follow-pages.js';
import { SharedFetch, type FetchControl, type Wait } from './shared-fetch.js';

export type { PageFetcher } from './follow-pages.js';
export type { Wait } from './shared-fetch.js';

/** Fetches the page at `cursor` for a shared fetch: requests made with its cancellation and no timeout. */
export type SharedPageFetcher = (cursor: string | undefined, control: FetchControl) => Promise<JsonObject>;

export interface LoadOptions {
  /** Keep the list until `invalidate()` (handshake era); otherwise fetch the pages on every load. */
  memoize: boolean;
  /** Whether `nextCursor: ""` ends the listing (the handshake era; see `follow-pages.ts`). */
  emptyCursorEnds: boolean;
  /** Drops tools that fail it (after the basic shape check), e.g. invalid `x-mcp-header` declarations. */
  filter?: (tool: Tool) => boolean;
}

interface CompiledOutput {
  schema: WireSchema;
  validator: Validator<unknown> | null;
  /** Why a schema with a pattern the linear-time engine refuses cannot check results. */
  refused?: SchemaError;
}

export class ToolCache {
  readonly #limits: ListLimits;
  #tools: readonly Tool[] | undefined;
  #byName = new Map<string, Tool>();
  /** Whether a list was fetched since the last `invalidate()` (then `#byName` is the server's list). */
  #listed = false;
  #validators = new Map<string, CompiledOutput>();
  #loading: SharedFetch<readonly Tool[]> | undefined;
  #generation = 0;

  constructor(limits: ListLimits) {
    this.#limits = limits;
  }

  get cached(): readonly Tool[] | undefined {
    return this.#tools;
  }

  /** Whether a list was fetched since the last `invalidate()`: `get(name)` then says what the server listed. */
  get listed(): boolean {
    return this.#listed;
  }

  /** Forgets the list; returns whether one had been fetched since the last time. */
  invalidate(): boolean {
    const listed = this.#listed;
    this.#generation++;
    this.#tools = undefined;
    this.#listed = false;
    this.#loading = undefined;
    this.#byName = new Map();
    this.#validators = new Map();
    return listed;
  }

  /**
   * Returns the kept list (when memoizing), or fetches every page. Concurrent callers share one fetch
   * (see `SharedFetch`): `fetchPage` gets its control, never a caller's signal or timeout; each caller
   * waits on the terms of `wait`, and the fetch is cancelled once nobody waits.
   */
  load(fetchPage: SharedPageFetcher, options: LoadOptions, wait: Wait): Promise<readonly Tool[]> {
    if (options.memoize && this.#tools) return Promise.resolve(this.#tools);
    if (!this.#loading?.joinable) {
      const generation = this.#generation;
      const loading = new SharedFetch('tools/list', (control) => {
        const page: PageFetcher = (cursor) =>
          fetchPage(cursor, control).then((result) => {
            control.progress();
            return result;
          });
        return this.#fetchAll(page, options).then(
          (tools) => this.#store(generation, tools, options),
          (error: unknown) => {
            if (this.#loading === loading) this.#loading = undefined;
            throw error;
          },
        );
      });
      this.#loading = loading;
    }
    return this.#loading.join(wait);
  }

  /**
   * Returns the kept list (when memoizing), or fetches every page for this caller alone, with its own request
   * options (those that shape the requests themselves, such as `onProgress`, cannot be shared).
   */
  async loadAlone(fetchPage: PageFetcher, options: LoadOptions): Promise<readonly Tool[]> {
    if (options.memoize && this.#tools) return this.#tools;
    const generation = this.#generation;
    return this.#store(generation, await this.#fetchAll(fetchPage, options), options);
  }

  /** Keeps a fetched list, unless the list changed (`invalidate()`) while it was being fetched. */
  #store(generation: number, tools: readonly Tool[], options: LoadOptions): readonly Tool[] {
    if (generation === this.#generation) {
      this.#tools = options.memoize ? tools : undefined;
      this.#byName = new Map(tools.map((t) => [t.name, t]));
      this.#listed = true;
      this.#loading = undefined;
    }
    return tools;
  }

  async #fetchAll(fetchPage: PageFetcher, options: LoadOptions): Promise<readonly Tool[]> {
    const { filter } = options;
    const tools = await followPages(fetchPage, {
      method: 'tools/list',
      key: 'tools',
      limits: this.#limits,
      emptyCursorEnds: options.emptyCursorEnds,
      accept: (tool): tool is Tool =>
        isJsonObject(tool) &&
        typeof tool.name === 'string' &&
        isJsonObject(tool.inputSchema) &&
        (!filter || filter(tool as unknown as Tool)),
    });
    return Object.freeze(tools);
  }

  get(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  /**
   * Checks a result's `structuredContent` against the outputSchema of `tool` as listed (nothing to check
   * when the server lists no such tool, or it has none). Throws ClientError OUTPUT_SCHEMA_MISMATCH.
   */
  checkOutput(name: string, tool: Tool | undefined, result: CallToolResult): void {
    if (!tool?.outputSchema) return;
    if (result.structuredContent === undefined) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} declares an outputSchema but its result has no structuredContent`,
        { details: { result } },
      );
    }
    const compiled = this.#compiled(name, tool.outputSchema);
    const refused = compiled.refused;
    if (refused) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} returned structuredContent that cannot be checked: its outputSchema is refused: ${refused.message}`,
        { details: { result, reason: refused.message } },
      );
    }
    const outcome = compiled.validator?.(result.structuredContent);
    if (outcome && !outcome.ok) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${formatIssues(outcome.issues)}`,
        { details: { result, issues: outcome.issues } },
      );
    }
  }

  /**
   * A schema that does not compile checks nothing, except one whose pattern the linear-time engine refuses
   * (a backreference, lookaround): that one is `refused`, and its results are not accepted unchecked. Kept
   * while the listed schema is the same object (a page served again from the cache reuses it).
   */
  #compiled(name: string, schema: WireSchema): CompiledOutput {
    const known = this.#validators.get(name);
    if (known && known.schema === schema) return known;
    let compiled: CompiledOutput;
    try {
      compiled = { schema, validator: compileJsonSchema(schema) };
    } catch (error) {
      const pattern = error instanceof SchemaError && isPatternRefusal(error.details);
      compiled = pattern ? { schema, validator: null, refused: error } : { schema, validator: null };
    }
    this.#validators.set(name, compiled);
    return compiled;
  }
}

function isPatternRefusal(details: unknown): boolean {
  return typeof details === 'object' && details !== null && 'pattern' in details;
}
