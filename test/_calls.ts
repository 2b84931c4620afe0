// Tool calls for middleware unit tests: a ToolCall as the chain would build it, without a server.
import type { CallToolResult } from '../src/protocol/types/tools.js';
import type { CalledTool, ToolCall } from '../src/server/middleware/middleware.js';

export interface FakeCall extends ToolCall {
  /** Settles `done`. */
  finish(): void;
  /** Pretends the handler waits for the client's input until the returned function is called. */
  waitForInput(): () => void;
}

export function fakeCall(
  overrides: Partial<Omit<ToolCall, 'tool'>> & { tool?: Partial<CalledTool> } = {},
): FakeCall {
  const { tool, ...rest } = overrides;
  const controller = new AbortController();
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let waiting = 0;
  let waited = 0;
  let since = 0;
  const name = tool?.name ?? 'echo';
  return {
    tool: {
      name,
      definition: { name, inputSchema: { type: 'object' } },
      annotations: undefined,
      limits: {},
      task: false,
      ...tool,
    },
    arguments: {},
    principal: undefined,
    sessionId: undefined,
    requestId: 1,
    era: 'handshake',
    protocolVersion: '2025-11-25',
    signal: controller.signal,
    meta: undefined,
    decision: 'allowed',
    abort: (reason?: unknown) => controller.abort(reason),
    done,
    get waitingForInput() {
      return waiting > 0;
    },
    inputWaitMs: () => waited + (waiting > 0 ? performance.now() - since : 0),
    finish,
    waitForInput() {
      if (waiting++ === 0) since = performance.now();
      return () => {
        if (--waiting === 0) waited += performance.now() - since;
      };
    },
    ...rest,
  };
}

export const ok = (text = 'ok'): CallToolResult => ({ content: [{ type: 'text', text }] });
