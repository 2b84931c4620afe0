// The toolwire conformance fixture: the tools, resources and prompts that the MCP conformance suite
// (@modelcontextprotocol/conformance, server mode) expects, served over Streamable HTTP; those of its
// 2026-07-28 scenarios (0.2.0-alpha) are in stateless-era.mjs, those of the tasks extension in tasks.mjs,
// the skills of the skills extension in skills.mjs.
// Built only with toolwire's public API (the built package in dist/, through its own name).
//
//   node examples/conformance-server/index.mjs [--port 0] [--host 127.0.0.1]
//
// Prints `toolwire conformance server listening on http://127.0.0.1:PORT/mcp` on stdout once it
// listens; stops on SIGINT/SIGTERM. scripts/conformance.mjs starts it and runs the suite against it.
import { parseArgs } from 'node:util';
import {
  EMBEDDED_RESOURCE,
  ERROR_TEXT,
  JSON_SCHEMA_2020_12,
  LOG_MESSAGES,
  MIXED_RESOURCE,
  PNG_BASE64,
  SEP1034_SCHEMA,
  SEP1330_SCHEMA,
  SIMPLE_TEXT,
  STATIC_TEXT,
  USER_SCHEMA,
  WAV_BASE64,
  completeArgument,
  elicitationSummary,
  samplingText,
  sleep,
} from './fixture-data.mjs';

const { values: options } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});

function fail(message) {
  console.error(`conformance server: ${message}`);
  process.exit(1);
}

async function load(specifier, hint) {
  try {
    return await import(specifier);
  } catch (error) {
    const code = error?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
      fail(`cannot import ${specifier} (${code}): ${hint}`);
    }
    throw error;
  }
}

const { Server, text, image, audio, embeddedResource, toolError } = await load(
  'toolwire/server',
  'build the package first (npm run build)',
);
const { serveHttp } = await load(
  'toolwire/http',
  'the Streamable HTTP server (serveHttp, exported as toolwire/http) is not in dist/ yet; build it (npm run build) once it exists',
);
if (typeof serveHttp !== 'function') fail('toolwire/http does not export serveHttp');

const server = new Server({ name: 'toolwire-conformance-server', version: '1.0.0' });

// ---- tools -------------------------------------------------------------------------------------

server.tool(
  'test_simple_text',
  { description: 'Returns a simple text response', inputSchema: { type: 'object', properties: {} } },
  () => text(SIMPLE_TEXT),
);

server.tool('test_image_content', { description: 'Returns a 1x1 PNG image' }, () =>
  image(PNG_BASE64, 'image/png'),
);

server.tool('test_audio_content', { description: 'Returns a short WAV clip' }, () =>
  audio(WAV_BASE64, 'audio/wav'),
);

server.tool('test_embedded_resource', { description: 'Returns an embedded text resource' }, () =>
  embeddedResource(EMBEDDED_RESOURCE),
);

server.tool(
  'test_multiple_content_types',
  { description: 'Returns text, an image and an embedded resource' },
  () => [
    text('Multiple content types test:'),
    image(PNG_BASE64, 'image/png'),
    embeddedResource(MIXED_RESOURCE),
  ],
);

server.tool(
  'test_tool_with_logging',
  { description: 'Sends three log messages while it runs' },
  async (_args, ctx) => {
    for (const [index, message] of LOG_MESSAGES.entries()) {
      if (index > 0) await sleep(50);
      await ctx.log('info', message);
    }
    return text('Tool with logging executed successfully');
  },
);

server.tool(
  'test_tool_with_progress',
  { description: 'Reports progress 0, 50, 100 of 100 when asked for progress' },
  async (_args, ctx) => {
    for (const [index, progress] of [0, 50, 100].entries()) {
      if (index > 0) await sleep(50);
      await ctx.progress(progress, 100, `Completed step ${index + 1} of 3`);
    }
    return text('Tool with progress executed successfully');
  },
);

server.tool('test_error_handling', { description: 'Always returns a tool error (isError)' }, () =>
  toolError(ERROR_TEXT),
);

server.tool(
  'test_sampling',
  {
    description: "Asks the client's model to answer the prompt (sampling/createMessage)",
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the model' } },
      required: ['prompt'],
    },
  },
  async ({ prompt }, ctx) => {
    const result = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    return text(`LLM response: ${samplingText(result)}`);
  },
);

server.tool(
  'test_elicitation',
  {
    description: 'Asks the user for a username and an email (elicitation/create)',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  },
  async ({ message }, ctx) =>
    text(elicitationSummary('User response', await ctx.elicit({ message, requestedSchema: USER_SCHEMA }))),
);

server.tool(
  'test_elicitation_sep1034_defaults',
  { description: 'Elicits a form whose fields have defaults (SEP-1034)' },
  async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: SEP1034_SCHEMA,
    });
    return text(elicitationSummary('Elicitation completed', result));
  },
);

server.tool(
  'test_elicitation_sep1330_enums',
  { description: 'Elicits a form with the five enum shapes (SEP-1330)' },
  async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please select options from the enum fields',
      requestedSchema: SEP1330_SCHEMA,
    });
    return text(elicitationSummary('Elicitation completed', result));
  },
);

server.tool(
  'json_schema_2020_12_tool',
  {
    description: 'Has a JSON Schema 2020-12 inputSchema ($schema, $defs, $ref)',
    inputSchema: JSON_SCHEMA_2020_12,
  },
  (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
);

server.tool(
  'test_reconnection',
  {
    description: 'Closes the SSE stream of its POST mid-call; the result arrives after the client reconnects',
  },
  async (_args, ctx) => {
    // 2025-11-25 SSE polling: end this request's HTTP response (after the priming event, which carries
    // `retry`) without ending the logical stream; the result is then replayed on a GET with Last-Event-ID.
    // (Named closeSSEStream in the tool context being built; closeStream in the first sketch.)
    const closeStream = ctx.closeSSEStream ?? ctx.closeStream;
    if (typeof closeStream === 'function') await closeStream.call(ctx);
    await sleep(100);
    return text('Reconnection test completed successfully');
  },
);

// ---- resources, prompts, completions (the API lands separately: register only once it exists) --

if (typeof server.resource === 'function') {
  server.resource(
    'test://static-text',
    {
      name: 'static-text',
      title: 'Static text',
      description: 'A static text resource',
      mimeType: 'text/plain',
    },
    () => [{ uri: 'test://static-text', mimeType: 'text/plain', text: STATIC_TEXT }],
  );
  server.resource(
    'test://static-binary',
    {
      name: 'static-binary',
      title: 'Static binary',
      description: 'A static binary resource (a 1x1 PNG)',
      mimeType: 'image/png',
    },
    () => [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 }],
  );
  server.resource(
    'test://watched-resource',
    {
      name: 'watched-resource',
      title: 'Watched resource',
      description: 'A resource clients may subscribe to',
      mimeType: 'text/plain',
    },
    () => [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
  );
} else {
  console.error('conformance server: server.resource() is not available yet; serving no resources');
}

if (typeof server.resourceTemplate === 'function') {
  server.resourceTemplate(
    'test://template/{id}/data',
    {
      name: 'template-data',
      title: 'Template data',
      description: 'A resource template with an id parameter',
      mimeType: 'application/json',
    },
    (uri, variables) => [
      {
        uri: String(uri),
        mimeType: 'application/json',
        text: JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${variables.id}` }),
      },
    ],
  );
}

if (typeof server.prompt === 'function') {
  server.prompt('test_simple_prompt', { description: 'A prompt without arguments', arguments: [] }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, complete: completeArgument },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );
  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds the resource it is given',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.prompt('test_prompt_with_image', { description: 'A prompt with an image', arguments: [] }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
} else {
  console.error('conformance server: server.prompt() is not available yet; serving no prompts');
}

// ---- the 2026-07-28 scenarios of the 0.2.0 alphas ------------------------------------------------

const { registerStatelessEraFixtures } = await import('./stateless-era.mjs');
registerStatelessEraFixtures(server);

// The tasks extension (tasks-* scenarios): tools that run as tasks for clients that declare it.
const { registerTasksFixtures } = await import('./tasks.mjs');
registerTasksFixtures(server);

// The skills extension (sep-2640-skills-* scenarios): skills served as skill:// resources.
const { registerSkillsFixtures } = await import('./skills.mjs');
registerSkillsFixtures(server);

// ---- HTTP ---------------------------------------------------------------------------------------

const port = Number(options.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${options.port}`);

const http = await serveHttp(server, { port, host: options.host, retryMs: 500 });
console.log(`toolwire conformance server listening on ${http.url}`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  const timer = setTimeout(() => process.exit(0), 3_000);
  timer.unref();
  try {
    await http.close();
    await server.close();
  } finally {
    process.exit(0);
  }
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
