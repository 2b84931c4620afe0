/**
 * The client's view of a server's tools: every page fetched (with a cap against endless cursors) and
 * compiled output validators per tool. In the handshake era the list is kept until `list_changed`; in the
 * stateless era every `listTools()` walks the pages again, each page coming from the result cache while
 * its `ttlMs` says it is fresh.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject } from '../protocol/jsonrpc.js';
import type { CallToolResult, Tool, WireSchema } from '../protocol/types/tools.js';
import { SchemaError, compileJsonSchema, formatIssues, type Validator } from '../schema/index.js';
import { ClientError } from './client-error.js';
import { followPages, type PageFetcher } from './follow-pages.js';

export type { PageFetcher } from './follow-pages.js';

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
  readonly #maxPages: number;
  #tools: readonly Tool[] | undefined;
  #byName = new Map<string, Tool>();
  #validators = new Map<string, CompiledOutput>();
  #loading: Promise<readonly Tool[]> | undefined;
  #generation = 0;

  constructor(maxPages: number) {
    this.#maxPages = maxPages;
  }

  get cached(): readonly Tool[] | undefined {
    return this.#tools;
  }

  invalidate(): void {
    this.#generation++;
    this.#tools = undefined;
    this.#loading = undefined;
    this.#byName = new Map();
    this.#validators = new Map();
  }

  /** Returns the kept list (when memoizing), or fetches every page. Concurrent callers share one fetch. */
  load(
    fetchPage: PageFetcher,
    options: LoadOptions = { memoize: true, emptyCursorEnds: true },
  ): Promise<readonly Tool[]> {
    if (options.memoize && this.#tools) return Promise.resolve(this.#tools);
    if (this.#loading) return this.#loading;
    const generation = this.#generation;
    const loading = this.#fetchAll(fetchPage, options).then(
      (tools) => {
        if (generation === this.#generation) {
          this.#tools = options.memoize ? tools : undefined;
          this.#byName = new Map(tools.map((t) => [t.name, t]));
          this.#loading = undefined;
        }
        return tools;
      },
      (error: unknown) => {
        if (generation === this.#generation) this.#loading = undefined;
        throw error;
      },
    );
    this.#loading = loading;
    return loading;
  }

  async #fetchAll(fetchPage: PageFetcher, options: LoadOptions): Promise<readonly Tool[]> {
    const { filter } = options;
    const tools = await followPages(fetchPage, {
      method: 'tools/list',
      key: 'tools',
      maxPages: this.#maxPages,
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
   * Checks a result's `structuredContent` against the tool's cached outputSchema (nothing to check when
   * the tool is not cached or has none). Throws ClientError OUTPUT_SCHEMA_MISMATCH.
   */
  checkOutput(name: string, result: CallToolResult): void {
    const tool = this.#byName.get(name);
    if (!tool?.outputSchema) return;
    if (result.structuredContent === undefined) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} declares an outputSchema but its result has no structuredContent`,
        { details: { result } },
      );
    }
    const refused = this.#compiled(name)?.refused;
    if (refused) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} returned structuredContent that cannot be checked: its outputSchema is refused: ${refused.message}`,
        { details: { result, reason: refused.message } },
      );
    }
    const outcome = this.outputValidator(name)?.(result.structuredContent);
    if (outcome && !outcome.ok) {
      throw new ClientError(
        LocalErrorCode.OutputSchemaMismatch,
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${formatIssues(outcome.issues)}`,
        { details: { result, issues: outcome.issues } },
      );
    }
  }

  /**
   * The compiled validator of a tool's outputSchema; null when it has none or it does not compile. Kept
   * while the listed schema is the same object (a page served again from the cache reuses it).
   */
  outputValidator(name: string): Validator<unknown> | null {
    return this.#compiled(name)?.validator ?? null;
  }

  /**
   * A schema that does not compile checks nothing, except one whose pattern the linear-time engine refuses
   * (a backreference, lookaround): that one is `refused`, and its results are not accepted unchecked.
   */
  #compiled(name: string): CompiledOutput | undefined {
    const schema = this.#byName.get(name)?.outputSchema;
    if (!schema) return undefined;
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
