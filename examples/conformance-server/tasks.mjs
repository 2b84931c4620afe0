// The fixture tools of the tasks-* scenarios of the conformance suite (0.2.0-alpha): the tasks extension
// of 2026-07-28 (io.modelcontextprotocol/tasks, SEP-2663). A tool declared with `task` runs as a task
// when the request declares the extension: `tools/call` answers with a CreateTaskResult, the client polls
// tasks/get, answers the task's questions with tasks/update and may cancel it with tasks/cancel.
import { ErrorCode, ProtocolError } from 'toolwire';
import { text, toolError } from 'toolwire/server';

/** Resolves after `ms`, or rejects when `signal` aborts (a cancelled task stops at once). */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const CONFIRM_FORM = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};
const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

/** Registers the tasks fixtures on `server`. */
export function registerTasksFixtures(server) {
  server.tool(
    'greet',
    {
      description: 'Greets someone by name (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    ({ name }) => text(`Hello, ${name}!`),
  );

  server.tool(
    'slow_compute',
    {
      description: 'Sleeps `seconds`, then answers; runs as a task for clients that declare tasks',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
        required: ['seconds'],
      },
      task: 'optional',
    },
    async ({ seconds, label }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return text(`Computed ${label ?? 'result'} after ${seconds}s`);
    },
  );

  // `required`: a client that does not declare the tasks extension gets -32021 before the handler runs.
  server.tool(
    'failing_job',
    { description: 'Fails with a tool error after about a second (a task)', task: 'required' },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return toolError('failing_job: the job failed');
    },
  );

  server.tool(
    'protocol_error_job',
    { description: 'Ends with a JSON-RPC error (the task fails)', task: 'optional' },
    async (_args, ctx) => {
      await sleep(200, ctx.signal);
      throw new ProtocolError(ErrorCode.InternalError, 'protocol_error_job: the worker crashed');
    },
  );

  server.tool(
    'confirm_delete',
    {
      description: 'Asks for a confirmation (the task waits in input_required), then deletes',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      task: 'optional',
    },
    async ({ filename }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_FORM });
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  );

  server.tool(
    'multi_input',
    { description: 'Asks two questions at once (both pending together)', task: 'optional' },
    async (_args, ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ message: 'First name?', requestedSchema: NAME_FORM }),
        ctx.elicit({ message: 'Second name?', requestedSchema: NAME_FORM }),
      ]);
      return text(`Got ${first.content?.name ?? 'nothing'} and ${second.content?.name ?? 'nothing'}`);
    },
  );

  // Input first (multi round-trip requests on tools/call), then the work as a task.
  server.tool(
    'test_tool_with_task',
    {
      description: 'Asks for a name, then greets as a task',
      task: { support: 'required', start: 'handler' },
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: NAME_FORM },
        { key: 'user_name' },
      );
      await ctx.startTask();
      await sleep(300, ctx.signal);
      return text(`Hello, ${answer.content?.name ?? 'nobody'}!`);
    },
  );
}
