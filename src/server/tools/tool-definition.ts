/**
 * What `server.tool()` accepts, and its normal form: the wire `Tool`, compiled validators, the handler.
 * Schemas are resolved (and compiled) here, once, at registration; a bad definition throws at once.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { ContentBlock } from '../../protocol/types/content.js';
import type { Icon } from '../../protocol/types/lifecycle.js';
import {
  TOOL_NAME_PATTERN,
  type CallToolResult,
  type Tool,
  type ToolAnnotations,
} from '../../protocol/types/tools.js';
import {
  resolveSchema,
  SchemaError,
  type InferSchema,
  type ResolvedSchema,
  type SchemaInput,
} from '../../schema/index.js';
import { checkConcurrency } from '../middleware/concurrency-limit.js';
import { checkBucket } from '../middleware/rate-limit.js';
import { checkTimeout } from '../middleware/timeout.js';
import type { CalledTool } from '../middleware/middleware.js';
import type { ToolLimits } from '../middleware/tool-limits.js';
import type { ToolChain } from '../middleware/tool-chain.js';
import { checkAccess, type ToolAccess } from '../auth/access-control.js';
import { ServerError } from '../server-error.js';
import type { ToolContext } from '../tool-context.js';
import { checkToolMetadata } from './tool-metadata.js';

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
> extends ToolLimits {
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
  /**
   * A call may run as a task: `tools/call` answers at once with a task id, the client polls for its
   * status and gets the result later. 2025-11-25 (`execution.taskSupport` in `tools/list`): the client
   * asks with `params.task`; `'optional'` lets it choose, `'required'` answers a plain call with -32601
   * (and a tool without `task` answers a task-augmented one with -32601). 2026-07-28 (the tasks
   * extension): `'optional'` runs as a task when the request declares the extension, `'required'`
   * answers a request that does not with -32021; with `start: 'handler'` the call starts as an ordinary
   * one (its input through multi round-trip requests) and becomes a task when the handler calls
   * `ctx.startTask()`. Earlier revisions always run the call inline.
   */
  task?: ToolTaskSupport | ToolTaskOptions;
  /**
   * What a caller needs to see and call this tool: every scope in `scopes` and one role of `roles`
   * (from the authenticated principal). Callers without them do not find it in `tools/list`, and their
   * calls are refused. Not sent to clients.
   */
  access?: ToolAccess;
}

export type ToolTaskSupport = 'optional' | 'required';

export interface ToolTaskOptions {
  support: ToolTaskSupport;
  /**
   * When the call becomes a task: `'call'` (default) before the handler runs; `'handler'` when the
   * handler calls `ctx.startTask()` (a handler that returns first answers inline).
   */
  start?: 'call' | 'handler';
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
  /** Whether and how calls may run as tasks (2026-07-28 tasks extension); undefined: always inline. */
  readonly task: Required<ToolTaskOptions> | undefined;
  /** Its timeout, rate limit, concurrency cap and output trust, as declared. */
  readonly limits: ToolLimits;
  /** The tool as tool-call middleware sees it (built once). */
  readonly called: CalledTool;
  /** What a caller needs to see and call it; undefined: anyone the server lets in. */
  readonly access: ToolAccess | undefined;
  /** The middleware chain of the server it is registered on (none outside a server). */
  readonly chain: ToolChain | undefined;
}

const NO_ARGUMENTS: JsonObject = { type: 'object', additionalProperties: false };

/** Tool arguments are an object: an `inputSchema` root must say `"type": "object"` (every revision). */
function objectRoot(schema: JsonObject, name: string): void {
  if (schema.type !== 'object') {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      `Tool "${name}": inputSchema must describe an object (its root needs "type": "object")`,
    );
  }
}

function limitsOf(name: string, spec: ToolLimits): ToolLimits {
  const what = `Tool "${name}"`;
  checkTimeout(spec.timeout, `${what}: timeout`);
  checkBucket(spec.rateLimit, `${what}: rateLimit`);
  checkConcurrency(spec.maxConcurrency, `${what}: maxConcurrency`);
  const limits: ToolLimits = {};
  if (spec.timeout !== undefined) limits.timeout = spec.timeout;
  if (spec.rateLimit !== undefined) limits.rateLimit = spec.rateLimit && { ...spec.rateLimit };
  if (spec.maxConcurrency !== undefined) limits.maxConcurrency = spec.maxConcurrency;
  if (spec.untrustedOutput === true) limits.untrustedOutput = true;
  return Object.freeze(limits);
}

/** Builds a tool; `chain` is the middleware of the server it runs on. */
export function buildTool(name: string, spec: ToolSpec, chain?: ToolChain): RegisteredTool {
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ServerError(
      LocalErrorCode.InvalidDefinition,
      `Invalid tool name "${name}": use 1-128 characters from A-Z a-z 0-9 _ - .`,
    );
  }
  if (typeof spec.handler !== 'function') {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `Tool "${name}" needs a handler function`);
  }
  checkToolMetadata(name, spec);
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
  const task = taskOptions(name, spec.task);
  // 2025-11-25 lists it (shaping removes it for every other revision).
  if (task !== undefined) tool.execution = { taskSupport: task.support };
  const limits = limitsOf(name, spec);
  const access = checkAccess(spec.access, `Tool "${name}"`);
  const { handler } = spec;
  const frozen = Object.freeze(tool);
  const called: CalledTool = Object.freeze({
    name,
    definition: frozen,
    annotations: frozen.annotations,
    limits,
    task: task !== undefined,
  });
  return Object.freeze({
    name,
    tool: frozen,
    input,
    output,
    handler,
    task,
    limits,
    called,
    access,
    chain,
  });
}

function taskOptions(name: string, task: ToolSpec['task']): Required<ToolTaskOptions> | undefined {
  if (task === undefined) return undefined;
  const { support, start = 'call' } = typeof task === 'string' ? { support: task } : task;
  if ((support !== 'optional' && support !== 'required') || (start !== 'call' && start !== 'handler')) {
    throw new ServerError(
      LocalErrorCode.InvalidDefinition,
      `Tool "${name}": task must be 'optional', 'required' or { support, start?: 'call' | 'handler' }`,
    );
  }
  return Object.freeze({ support, start });
}
