/**
 * The client's view of a server's tools: every page fetched (with a cap against endless cursors),
 * cached until `list_changed`, and compiled output validators per tool.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { ListToolsResult, Tool } from '../protocol/types/tools.js';
import { compileJsonSchema, type Validator } from '../schema/index.js';
import { ClientError } from './client-error.js';

export type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

export class ToolCache {
  readonly #maxPages: number;
  #tools: readonly Tool[] | undefined;
  #byName = new Map<string, Tool>();
  #validators = new Map<string, Validator<unknown> | null>();
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

  /** Returns the cached list, or fetches every page. Concurrent callers share one fetch. */
  load(fetchPage: PageFetcher): Promise<readonly Tool[]> {
    if (this.#tools) return Promise.resolve(this.#tools);
    if (this.#loading) return this.#loading;
    const generation = this.#generation;
    const loading = this.#fetchAll(fetchPage).then(
      (tools) => {
        if (generation === this.#generation) {
          this.#tools = tools;
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

  async #fetchAll(fetchPage: PageFetcher): Promise<readonly Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= this.#maxPages) {
        throw new ClientError(
          LocalErrorCode.TooManyPages,
          `tools/list returned more than ${this.#maxPages} pages; stopping (raise maxListPages if this is expected)`,
        );
      }
      const result = await fetchPage(cursor);
      if (!Array.isArray(result.tools)) {
        throw new ClientError(LocalErrorCode.InvalidResult, 'tools/list result has no "tools" array');
      }
      for (const tool of (result as unknown as ListToolsResult).tools) {
        if (isJsonObject(tool) && typeof tool.name === 'string' && isJsonObject(tool.inputSchema))
          tools.push(tool);
      }
      const next = result.nextCursor;
      if (typeof next !== 'string') break;
      if (seen.has(next)) {
        throw new ClientError(LocalErrorCode.InvalidResult, `tools/list repeated the cursor "${next}"`);
      }
      seen.add(next);
      cursor = next;
    }
    return Object.freeze(tools);
  }

  get(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  /** The compiled validator of a tool's outputSchema; null when it has none or it does not compile. */
  outputValidator(name: string): Validator<unknown> | null {
    const known = this.#validators.get(name);
    if (known !== undefined) return known;
    const schema = this.#byName.get(name)?.outputSchema;
    let validator: Validator<unknown> | null = null;
    if (schema) {
      try {
        validator = compileJsonSchema(schema);
      } catch {
        validator = null;
      }
    }
    this.#validators.set(name, validator);
    return validator;
  }
}
