/**
 * The `tools/call` pipeline: check params, find the tool, validate arguments, run the handler through
 * the server's middleware chain (audit, limits, timeout, sanitization, `server.use()`), normalize and
 * check its result. Tool failures become `isError` results; only malformed requests, unknown tools and
 * refusals by middleware (e.g. a rate limit) are protocol errors (SEP-1303). Calls whose arguments fail
 * the schema end before the chain: the handler would never run.
 * @module
 */
import { ErrorCode, ProtocolError, ToolwireError, errorMessage } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { isPromiseLike, type MaybePromise } from '../../protocol/promise-like.js';
import type { ContentBlock } from '../../protocol/types/content.js';
import { blockProblem } from '../../protocol/types/content-checks.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { UrlElicitationRequiredError } from '../../protocol/types/url-elicitation.js';
import { formatIssues, type ResolvedSchema, type ValidationOutcome } from '../../schema/index.js';
import { InputRequiredSignal } from '../input-required/input-round.js';
import { startToolCall, type CallOrigin } from '../middleware/tool-call.js';
import { toolError } from '../results.js';
import type { RegisteredTool, ToolReturn } from './tool-definition.js';
import type { ToolContext } from '../tool-context.js';
import { urlElicitationAnswer } from './url-elicitation-answer.js';

/** Where a call comes from, and where a bug in its result is reported (`onToolBug`). */
export type CallToolHooks = CallOrigin;

/** Checks `tools/call` params; throws -32602 for a malformed request. */
export function parseCallParams(params: JsonObject): { name: string; args: JsonObject } {
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || name.length === 0) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a non-empty string');
  }
  if (args !== undefined && args !== null && !isJsonObject(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
  }
  return { name, args: isJsonObject(args) ? args : {} };
}

function validate(
  schema: ResolvedSchema,
  value: unknown,
): ValidationOutcome<unknown> | Promise<ValidationOutcome<unknown>> {
  return schema.validateSync ? schema.validateSync(value) : schema.validate(value);
}

function isContentBlock(value: unknown): value is ContentBlock {
  return isJsonObject(value) && typeof value.type === 'string';
}

function contentProblem(blocks: readonly unknown[]): string | undefined {
  // An index loop: no iterator per result (every call passes here).
  for (let index = 0; index < blocks.length; index++) {
    const problem = blockProblem(blocks[index]);
    if (problem !== undefined) return `content[${index}] ${problem}`;
  }
  return undefined;
}

/** Turns whatever the handler returned into a CallToolResult, or explains why it cannot. */
export function normalizeResult(value: ToolReturn): CallToolResult | string {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (Array.isArray(value)) {
    const problem = contentProblem(value);
    return problem === undefined
      ? { content: value }
      : `the handler returned an array that is not content blocks: ${problem}`;
  }
  if (!isJsonObject(value))
    return `the handler returned ${value === null ? 'null' : typeof value}, not a result`;
  if ('content' in value || 'structuredContent' in value) {
    const content = value.content ?? [];
    if (!Array.isArray(content)) return 'the result\'s "content" is not an array of content blocks';
    const problem = contentProblem(content);
    if (problem !== undefined) return `the result's ${problem}`;
    const out: CallToolResult = { content: content as ContentBlock[] };
    if (value.structuredContent !== undefined) out.structuredContent = value.structuredContent;
    if (value.isError === true) out.isError = true;
    if (isJsonObject(value._meta)) out._meta = value._meta;
    return out;
  }
  if (isContentBlock(value)) {
    const problem = blockProblem(value);
    return problem === undefined ? { content: [value] } : `the handler returned a block that ${problem}`;
  }
  return 'the handler returned an object that is neither a result nor a content block';
}

/**
 * Runs one call: arguments checked, then the
 * chain (or the handler alone, for a tool without one). Not async: with a compiled validator and a
 * synchronous handler nothing here waits.
 */
export function callTool(
  tool: RegisteredTool,
  args: JsonObject,
  ctx: ToolContext,
  hooks: CallToolHooks = {},
): MaybePromise<CallToolResult> {
  const validated = validate(tool.input, args);
  if (validated instanceof Promise)
    return validated.then((checked) => checkedCall(tool, checked, ctx, hooks));
  return checkedCall(tool, validated, ctx, hooks);
}

function checkedCall(
  tool: RegisteredTool,
  checked: ValidationOutcome<unknown>,
  ctx: ToolContext,
  hooks: CallToolHooks,
): MaybePromise<CallToolResult> {
  if (!checked.ok)
    return toolError(`Invalid arguments for tool ${tool.name}: ${formatIssues(checked.issues)}`);
  return chained(tool, checked.value, ctx, hooks);
}

/** Runs the handler through the chain; a call no middleware can abort takes the direct path. */
function chained(
  tool: RegisteredTool,
  args: unknown,
  ctx: ToolContext,
  hooks: CallToolHooks,
): MaybePromise<CallToolResult> {
  const chain = tool.chain;
  if (!chain) return runHandler(tool, args, ctx, hooks);
  // The call carries `hooks.onToolBug`: sanitization reports through it (see tool-bugs.ts).
  const started = startToolCall(tool, args as JsonObject, ctx, hooks, !chain.mayAbort(tool.called));
  const handler = (context: ToolContext) => runHandler(tool, args, context, hooks);
  const running = chain.run(started.call, () => started.handle(handler));
  // A chain that ended without running the handler (a refusal) finishes the call when it settles.
  if (isPromiseLike(running)) running.then(started.end, started.end);
  else started.end();
  return running;
}

/**
 * Ends a call refused before its arguments were even checked (access control): the audit log records
 * it as `denied`, then `error` is thrown (the request's JSON-RPC error). The handler never runs.
 */
export async function refuseCall(
  tool: RegisteredTool,
  args: JsonObject,
  ctx: ToolContext,
  origin: CallOrigin,
  error: ProtocolError,
): Promise<never> {
  if (tool.chain) {
    const started = startToolCall(tool, args, ctx, origin);
    try {
      await tool.chain.refuse(started.call, error);
    } finally {
      started.end();
    }
  }
  throw error;
}

/**
 * Runs the handler on validated arguments; normalizes and checks what it returns. Not async: a handler
 * that answers synchronously (most do) is checked at once, with no frame kept across an `await`.
 */
function runHandler(
  tool: RegisteredTool,
  args: unknown,
  ctx: ToolContext,
  hooks: CallToolHooks,
): MaybePromise<CallToolResult> {
  let returned: ToolReturn | PromiseLike<ToolReturn>;
  try {
    returned = tool.handler(args as never, ctx);
  } catch (error) {
    return handlerFailed(tool, ctx, error);
  }
  if (isPromiseLike(returned)) {
    return Promise.resolve(returned).then(
      (value) => checkResult(tool, value, hooks),
      (error: unknown) => handlerFailed(tool, ctx, error),
    );
  }
  return checkResult(tool, returned, hooks);
}

/** A handler threw or rejected: an `isError` result, or the error itself where it ends the call as such. */
function handlerFailed(tool: RegisteredTool, ctx: ToolContext, error: unknown): Promise<CallToolResult> {
  // -32042 as the client can take it (see url-elicitation-answer.ts).
  if (error instanceof UrlElicitationRequiredError) return urlElicitationAnswer(tool.name, ctx, error);
  // Protocol errors (e.g. -32021) and a stateless-era wait for client input end the call as such.
  if (error instanceof ProtocolError || error instanceof InputRequiredSignal) return Promise.reject(error);
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the handler's own error, passed on as thrown
  if (ctx.signal.aborted) return Promise.reject(error);
  const prefix = error instanceof ToolwireError ? '' : `Tool ${tool.name} failed: `;
  return Promise.resolve(toolError(`${prefix}${errorMessage(error)}`));
}

/** What the handler returned, as a checked result (its outputSchema); a bug report and an `isError` if not. */
function checkResult(
  tool: RegisteredTool,
  returned: ToolReturn,
  hooks: CallToolHooks,
): CallToolResult | Promise<CallToolResult> {
  const result = normalizeResult(returned);
  if (typeof result === 'string') return reportBug(tool, hooks, `returned an invalid result: ${result}`);
  if (result.isError) return result;

  if (tool.output) {
    if (result.structuredContent === undefined) {
      return reportBug(tool, hooks, 'declares an outputSchema but returned no structuredContent');
    }
    const validated = validate(tool.output, result.structuredContent);
    if (validated instanceof Promise)
      return validated.then((outcome) => checkedOutput(tool, hooks, result, outcome));
    return checkedOutput(tool, hooks, result, validated);
  }
  return withText(result);
}

function checkedOutput(
  tool: RegisteredTool,
  hooks: CallToolHooks,
  result: CallToolResult,
  outcome: ValidationOutcome<unknown>,
): CallToolResult {
  if (!outcome.ok) {
    return reportBug(
      tool,
      hooks,
      `returned structured content that does not match its outputSchema: ${formatIssues(outcome.issues)}`,
    );
  }
  return withText(result);
}

/** A result with structured content and no content blocks gets the structured content as text. */
function withText(result: CallToolResult): CallToolResult {
  if (result.structuredContent !== undefined && result.content.length === 0) {
    result.content = [{ type: 'text', text: JSON.stringify(result.structuredContent) }];
  }
  return result;
}

function reportBug(tool: RegisteredTool, hooks: CallToolHooks, what: string): CallToolResult {
  const message = `Tool ${tool.name} ${what}`;
  hooks.onToolBug?.(message, tool.name);
  return toolError(message);
}
