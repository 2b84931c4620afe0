// An attack made of tool calls over a JSON-mode HTTP session, one after another, each judged by what it
// must get back: 'ok' (a result that is not an error), 'invalid' (an isError result about the arguments,
// or -32602), 'any' (an answer), or a function of the result returning what is wrong (or nothing).
import { openSession, post } from './http.mjs';

/** A tools/call as JSON text; `args` may be JSON text already (nesting JSON.stringify cannot reach). */
const callText = (id, name, args) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${typeof args === 'string' ? args : JSON.stringify(args)}}}`;

/** Calls a tool in `session`; resolves { ms, status, result, error }. */
export async function timedCall(url, session, id, name, args) {
  const started = performance.now();
  const res = await post(url, callText(id, name, args), { session, timeoutMs: 60_000 }).catch((error) => ({
    status: error.message,
  }));
  // An error that answers no id (a body refused before it was parsed: -32700, nested too deep) answers this call.
  const message =
    res.messages?.find((m) => m.id === id) ?? res.messages?.find((m) => m.id == null && m.error);
  return {
    ms: performance.now() - started,
    status: res.status,
    result: message?.result,
    error: message?.error,
  };
}

export const firstText = (result) => result?.content?.[0]?.text ?? '';

function problemWith(input, r) {
  const shown = () => `${r.status} ${JSON.stringify(r.result ?? r.error)?.slice(0, 140)}`;
  if (typeof input.expect === 'function') return r.result ? input.expect(r.result) : `no result: ${shown()}`;
  if (input.expect === 'ok') return r.result && !r.result.isError ? undefined : shown();
  if (input.expect === 'invalid') {
    const refused =
      (r.result?.isError && /argument|invalid|must/i.test(firstText(r.result))) ||
      r.error?.code === -32602 ||
      (r.error?.code === -32700 && /nested deeper/.test(r.error.message));
    return refused ? undefined : `expected a refusal, got ${shown()}`;
  }
  return r.result || r.error ? undefined : `no answer (${r.status})`;
}

/**
 * An attack whose `inputs(quick)` are { what, tool, args, expect }, run against a JSON-mode HTTP target; notes
 * the slowest call.
 */
export function callAttack(name, title, inputs, extra = {}) {
  return {
    name,
    title,
    target: { transport: 'http', flags: ['--json'] },
    ...extra,
    async run(ctx) {
      const url = ctx.target.url;
      const session = await openSession(url);
      let slowest = { ms: 0 };
      let id = 0;
      for (const input of inputs(ctx.quick)) {
        ctx.tries++;
        const r = await timedCall(url, session, ++id, input.tool, input.args);
        if (r.ms > slowest.ms) slowest = { ms: r.ms, what: input.what };
        const problem = problemWith(input, r);
        if (problem) ctx.fail(`${input.what}: ${problem}`);
      }
      ctx.note(`slowest call ${slowest.ms.toFixed(0)} ms: ${slowest.what}`);
    },
  };
}
