/**
 * What `server.tool()` accepts, and its normal form: the wire `Tool`, compiled validators, the handler.
 * Schemas are resolved (and compiled) here, once, at registration; a bad definition throws at once.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { ContentBlock } from '../protocol/types/content.js';
import type { Icon } from '../protocol/types/lifecycle.js';
import {
  TOOL_NAME_PATTERN,
  type CallToolResult,
  type Tool,
  type ToolAnnotations,
} from '../protocol/types/tools.js';
import { resolveSchema, type InferSchema, type ResolvedSchema, type SchemaInput } from '../schema/index.js';
import { ServerError } from './server-error.js';
import type { ToolContext } from './tool-context.js';

/** What a handler may return: a full result, one block, several blocks, or plain text. */
export type ToolReturn<TStructured = unknown> =
  CallToolResult<TStructured> | ContentBlock | ContentBlock[] | string;

type Args<I> = [I] extends [undefined] ? Record<string, never> : InferSchema<I>;
type Structured<O> = [O] extends [undefined] ? unknown : InferSchema<O>;

export type ToolHandler<I = undefined, O = undefined> = (
  args: Args<I>,
  ctx: ToolContext,
) => ToolReturn<Structured<O>> | Promise<ToolReturn<Structured<O>>>;

export interface ToolDefinition<
  I extends SchemaInput | undefined = undefined,
  O extends SchemaInput | undefined = undefined,
> {
  title?: string;
  description?: string;
  /** JSON Schema (2020-12 by default, draft-07 via `$schema`), or a zod v4 / Standard JSON Schema. */
  inputSchema?: I;
  /**
   * The shape of `structuredContent`, any JSON Schema (e.g. `type: 'array'`); results are checked
   * against it. A 2025-06-18 / 2025-11-25 client, whose revision allows only object output, sees a
   * schema whose root is not `type: 'object'` as `{ type: 'object', properties: { result: <schema> },
   * required: ['result'] }`, and each value as `{ result: <value> }`.
   */
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A definition plus its handler: what the registry stores and `handle.update()` patches. */
export interface ToolSpec extends ToolDefinition<SchemaInput | undefined, SchemaInput | undefined> {
  handler: ToolHandler<SchemaInput | undefined, SchemaInput | undefined>;
}

/** A tool ready to list and call. */
export interface RegisteredTool {
  readonly name: string;
  /** The full wire form (every revision's fields); shaping narrows it per peer. */
  readonly tool: Tool;
  readonly input: ResolvedSchema;
  readonly output: ResolvedSchema | undefined;
  readonly handler: ToolSpec['handler'];
}

const NO_ARGUMENTS: JsonObject = { type: 'object', additionalProperties: false };

/** Tool arguments are an object: an `inputSchema` root must say `"type": "object"` (every revision). */
function objectRoot(schema: JsonObject, name: string): void {
  if (schema.type !== 'object') {
    throw new ServerError(
      LocalErrorCode.InvalidSchema,
      `Tool "${name}": inputSchema must describe an object (its root needs "type": "object")`,
    );
  }
}

export function buildTool(name: string, spec: ToolSpec): RegisteredTool {
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ServerError(
      LocalErrorCode.InvalidDefinition,
      `Invalid tool name "${name}": use 1-128 characters from A-Z a-z 0-9 _ - .`,
    );
  }
  if (typeof spec.handler !== 'function') {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `Tool "${name}" needs a handler function`);
  }
  const input = resolveSchema(spec.inputSchema ?? NO_ARGUMENTS, 'input');
  objectRoot(input.json, name);
  // Any JSON Schema describes the output (SEP-2106): an array, a string, a composition...
  const output = spec.outputSchema === undefined ? undefined : resolveSchema(spec.outputSchema, 'output');

  const tool = { name } as Tool;
  if (spec.title !== undefined) tool.title = spec.title;
  if (spec.description !== undefined) tool.description = spec.description;
  tool.inputSchema = input.json;
  if (output) tool.outputSchema = output.json;
  if (spec.annotations !== undefined) tool.annotations = spec.annotations;
  if (spec.icons !== undefined) tool.icons = spec.icons;
  if (spec._meta !== undefined) tool._meta = spec._meta;
  return Object.freeze({ name, tool: Object.freeze(tool), input, output, handler: spec.handler });
}
