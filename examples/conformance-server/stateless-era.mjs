// The fixture tools and prompts of the 2026-07-28 scenarios of the conformance suite (0.2.0-alpha): the
// diagnostic tools of `server-stateless`, a tool with an `x-mcp-header` parameter
// (`http-custom-header-server-validation`) and the tools and prompt of the `input-required-result-*`
// (MRTR, SEP-2322) scenarios. Each handler asks for input through the tool context, which serves both
// eras: a request to the client in the handshake era, an `input_required` result in the stateless era.
import { text } from 'toolwire/server';

const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};
const CONFIRM_FORM = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
};

const question = (text) => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
  maxTokens: 100,
});

const answerText = (result) =>
  result?.content?.type === 'text' ? result.content.text : JSON.stringify(result?.content ?? null);

/** Registers the fixtures on `server`; prompts only when the server has prompts. */
export function registerStatelessEraFixtures(server) {
  // ---- server-stateless ----

  // Needs sampling: a client that did not declare it gets -32021 (stateless era).
  server.tool(
    'test_missing_capability',
    { description: 'Asks the client for a sample, so it needs the sampling capability' },
    async (_args, ctx) => text(`Sampled: ${answerText(await ctx.sample(question('Say hello')))}`),
  );

  // Its response stream may carry the InputRequiredResult, never a request to the client.
  server.tool(
    'test_streaming_elicitation',
    { description: 'Asks the user for their name (elicitation)' },
    async (_args, ctx) => {
      const result = await ctx.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM });
      return text(`Hello, ${result.content?.name ?? 'nobody'}!`);
    },
  );

  // Logs, which must reach only clients that asked for a log level.
  server.tool(
    'test_logging_tool',
    { description: 'Logs three messages, then answers' },
    async (_args, ctx) => {
      for (const message of ['first', 'second', 'third'])
        await ctx.log('info', `test_logging_tool: ${message}`);
      return text('Logged three messages');
    },
  );

  let dynamicTool;
  server.tool(
    'test_trigger_tool_change',
    { description: 'Adds or removes the tool test_dynamic_tool (tools/list_changed)' },
    () => {
      if (dynamicTool) {
        dynamicTool.remove();
        dynamicTool = undefined;
        return text('Removed test_dynamic_tool');
      }
      dynamicTool = server.tool('test_dynamic_tool', { description: 'Comes and goes' }, () =>
        text('dynamic'),
      );
      return text('Added test_dynamic_tool');
    },
  );

  let dynamicPrompt;
  server.tool(
    'test_trigger_prompt_change',
    { description: 'Adds or removes the prompt test_dynamic_prompt (prompts/list_changed)' },
    () => {
      if (typeof server.prompt !== 'function') return text('This server has no prompts');
      if (dynamicPrompt) {
        dynamicPrompt.remove();
        dynamicPrompt = undefined;
        return text('Removed test_dynamic_prompt');
      }
      dynamicPrompt = server.prompt(
        'test_dynamic_prompt',
        { description: 'Comes and goes' },
        () => 'dynamic',
      );
      return text('Added test_dynamic_prompt');
    },
  );

  // ---- http-custom-header-server-validation (SEP-2243) ----

  server.tool(
    'test_custom_header',
    {
      description: 'Mirrors its region parameter into the Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: {
          region: {
            type: 'string',
            description: 'A region, also sent as a header',
            'x-mcp-header': 'Region',
          },
          query: { type: 'string', description: 'Any text' },
        },
        required: ['region'],
      },
    },
    ({ region }) => text(`Region: ${region}`),
  );

  // ---- input-required-result-* (SEP-2322) ----

  server.tool(
    'test_input_required_result_elicitation',
    { description: 'Asks the user for their name, then greets them' },
    async (_args, ctx) => {
      const result = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: NAME_FORM },
        { key: 'user_name' },
      );
      return text(`Hello, ${result.content?.name ?? 'nobody'}!`);
    },
  );

  server.tool(
    'test_input_required_result_sampling',
    { description: "Asks the client's model for the capital of France" },
    async (_args, ctx) =>
      text(
        answerText(await ctx.sample(question('What is the capital of France?'), { key: 'capital_question' })),
      ),
  );

  server.tool(
    'test_input_required_result_list_roots',
    { description: "Lists the client's roots" },
    async (_args, ctx) => {
      const { roots } = await ctx.listRoots({ key: 'client_roots' });
      return text(`Roots: ${roots.map((root) => root.uri).join(', ')}`);
    },
  );

  server.tool(
    'test_input_required_result_request_state',
    { description: 'Asks for a confirmation; the answer comes back with the request state' },
    async (_args, ctx) => {
      const result = await ctx.elicit(
        { message: 'Please confirm', requestedSchema: CONFIRM_FORM },
        { key: 'confirm' },
      );
      return text(`state-ok (confirmed: ${result.content?.ok === true})`);
    },
  );

  server.tool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a sample and the roots at once' },
    async (_args, ctx) => {
      const [name, greeting, { roots }] = await Promise.all([
        ctx.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM }, { key: 'user_name' }),
        ctx.sample({ ...question('Generate a greeting'), maxTokens: 50 }, { key: 'greeting' }),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return text(`${answerText(greeting)} ${name.content?.name ?? 'nobody'} (${roots.length} roots)`);
    },
  );

  server.tool(
    'test_input_required_result_multi_round',
    { description: 'Asks for a name, then for a favourite colour' },
    async (_args, ctx) => {
      const name = await ctx.elicit(
        { message: 'Step 1: What is your name?', requestedSchema: NAME_FORM },
        { key: 'step1' },
      );
      const color = await ctx.elicit(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        },
        { key: 'step2' },
      );
      return text(`${name.content?.name ?? 'nobody'} likes ${color.content?.color ?? 'nothing'}`);
    },
  );

  server.tool(
    'test_input_required_result_tampered_state',
    { description: 'Asks for a confirmation; a tampered request state is refused' },
    async (_args, ctx) => {
      const result = await ctx.elicit({ message: 'Please confirm', requestedSchema: CONFIRM_FORM });
      return text(`confirmed: ${result.content?.ok === true}`);
    },
  );

  server.tool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for the kinds of input the client declared' },
    async (_args, ctx) => {
      const caps = ctx.client.capabilities ?? {};
      const answers = await Promise.all([
        caps.elicitation ? ctx.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM }) : null,
        caps.sampling ? ctx.sample(question('Say hello')) : null,
        caps.roots ? ctx.listRoots() : null,
      ]);
      return text(`Answers: ${answers.filter((answer) => answer !== null).length}`);
    },
  );

  if (typeof server.prompt === 'function') {
    server.prompt(
      'test_input_required_result_prompt',
      { description: 'Asks the user for the context of the prompt' },
      async (_args, ctx) => {
        // Guard: prompts ask for input only once the prompt context can (MRTR on prompts/get).
        if (typeof ctx.elicit !== 'function')
          return 'No context: this server cannot ask for input in prompts';
        const result = await ctx.elicit({
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        });
        return `Use this context: ${result.content?.context ?? 'none'}`;
      },
    );
  }
}
