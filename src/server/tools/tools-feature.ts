/**
 * The tools feature: `tools/list` and `tools/call` in the server's handler table, in both eras. A call
 * runs through the tool-call chain (`call-tool.ts`); its handler's context is bound to the request's
 * scope (`context-host.ts`); a call may become a task (`tasks/`).
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isPromiseLike } from '../../protocol/promise-like.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { scopedHost, withInput } from '../context-host.js';
import type { HandlerTable } from '../handler-table.js';
import { isInputRequired } from '../input-required/input-requests.js';
import { cursorParam } from '../pages.js';
import type { RequestScope } from '../request-scope.js';
import { toolError } from '../results.js';
import type { ServerCore } from '../server-core.js';
import type { ServerFeature } from '../server-feature.js';
import { createToolContext, endProgress } from '../hosted-context.js';
import type { ToolContext } from '../tool-context.js';
import { callTool, parseCallParams, refuseCall } from './call-tool.js';

/** `tools/list` and `tools/call`: the tools of the server's registry, as each caller may see them. */
export class ToolsFeature implements ServerFeature {
  readonly #core: ServerCore;

  constructor(core: ServerCore) {
    this.#core = core;
  }

  capabilities(): ServerCapabilities {
    return { tools: { listChanged: true } };
  }

  install(table: HandlerTable): void {
    const core = this.#core;
    table.handle(
      'tools/list',
      ({ params, scope }) => {
        const cursor = cursorParam(params);
        const version = core.tools.version;
        const visible = core.access.visible(core.tools.list(), version, scope.principal);
        return core.toolPages.page(visible.tools, version, scope.profile, cursor, visible.key);
      },
      { cacheable: true },
    );
    // Not async: the call's own promise, shaped when it settles (no frame kept across an `await`).
    table.handle('tools/call', ({ params, scope, ctx, session }) => {
      const { name, args } = parseCallParams(params);
      const tool = core.tools.get(name);
      if (!tool) return this.#away(name, scope);
      // No AbortSignal.any with the server's shutdown signal here: server.close() closes every session,
      // which aborts the requests in flight (and `any` is costly on the hot path). The request's signal is
      // not read here either: the engine creates it on first use, and most calls never use it.
      const hooks = {
        onToolBug: core.options.onToolBug,
        sessionId: session.peer.transport?.sessionId,
        clientAddress: session.peer.transport?.clientAddress,
        principal: scope.principal,
      };
      const refusal = core.access.refusal(scope.principal, tool);
      if (refusal) {
        const context = createToolContext(scopedHost(session, scope), ctx);
        return refuseCall(tool, args, context, hooks, refusal);
      }
      const shape = (result: CallToolResult) => scope.profile.shapeCallResult(result, tool.tool);
      // Tasks: the client asks (2025-11-25, params.task) or the server decides (the 2026-07-28 extension).
      const tasks = core.tasks;
      const task = tasks?.decide(tool, scope, params);
      if (tasks && task !== undefined) {
        const run = (context: ToolContext) => Promise.resolve(callTool(tool, args, context, hooks));
        return tasks.call({ session, scope, params, tool, ctx, run, shape, ttl: task.ttl });
      }
      // Once answered, the call's progress stops (a handler's late `progress()` sends nothing).
      let context: ToolContext | undefined;
      const answered = () => context && endProgress(context);
      const running = withInput(session, scope, params, 'tools/call', ctx, (c) =>
        callTool(tool, args, (context = c), hooks),
      );
      // A handler that answered at once: its result is shaped at once (no reaction, no microtask).
      if (!isPromiseLike(running)) {
        answered();
        return isInputRequired(running) ? running : shape(running);
      }
      return running.then(
        (result) => {
          answered();
          return isInputRequired(result) ? result : shape(result);
        },
        (error: unknown) => {
          answered();
          throw error;
        },
      );
    });
  }

  /**
   * A call of a tool that is not listed: a tool disabled with a reason (away for a while) is answered with
   * that reason as an `isError` result, when the caller may call it; any other is an unknown tool.
   */
  #away(name: string, scope: RequestScope): CallToolResult {
    const core = this.#core;
    const away = core.tools.away(name);
    if (!away || core.access.refusal(scope.principal, away.entry)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${echoedName(name)}`);
    }
    return scope.profile.shapeCallResult(toolError(away.reason), away.entry.tool);
  }
}
