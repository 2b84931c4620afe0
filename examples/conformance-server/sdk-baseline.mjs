// The conformance fixture served by the official TypeScript SDK (1.x, a devDependency) instead of
// toolwire: a yardstick for the harness (scripts/conformance.mjs --sdk-baseline), not part of `npm test`.
// Low-level SDK Server, one session per initialize, an in-memory event store (resumability), SSE
// `retry` 500 ms, Host/Origin checks for DNS-rebinding protection. Same data as the toolwire fixture.
//
//   node examples/conformance-server/sdk-baseline.mjs [--port 0] [--host 127.0.0.1]
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
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

const NO_ARGS = { type: 'object', properties: {} };
const text = (value) => ({ type: 'text', text: value });
const image = { type: 'image', data: PNG_BASE64, mimeType: 'image/png' };

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns a simple text response', inputSchema: NO_ARGS },
  { name: 'test_image_content', description: 'Returns a 1x1 PNG image', inputSchema: NO_ARGS },
  { name: 'test_audio_content', description: 'Returns a short WAV clip', inputSchema: NO_ARGS },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource', inputSchema: NO_ARGS },
  { name: 'test_multiple_content_types', description: 'Returns mixed content', inputSchema: NO_ARGS },
  { name: 'test_tool_with_logging', description: 'Logs while it runs', inputSchema: NO_ARGS },
  { name: 'test_tool_with_progress', description: 'Reports progress', inputSchema: NO_ARGS },
  { name: 'test_error_handling', description: 'Returns a tool error', inputSchema: NO_ARGS },
  {
    name: 'test_sampling',
    description: 'Asks the client model',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'SEP-1034 defaults', inputSchema: NO_ARGS },
  { name: 'test_elicitation_sep1330_enums', description: 'SEP-1330 enums', inputSchema: NO_ARGS },
  { name: 'json_schema_2020_12_tool', description: 'JSON Schema 2020-12', inputSchema: JSON_SCHEMA_2020_12 },
  { name: 'test_reconnection', description: 'Closes its SSE stream mid-call', inputSchema: NO_ARGS },
];

async function callTool(request, extra) {
  const args = request.params.arguments ?? {};
  const log = (data) =>
    extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
  const elicit = (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
  switch (request.params.name) {
    case 'test_simple_text':
      return { content: [text(SIMPLE_TEXT)] };
    case 'test_image_content':
      return { content: [image] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return { content: [{ type: 'resource', resource: EMBEDDED_RESOURCE }] };
    case 'test_multiple_content_types':
      return {
        content: [
          text('Multiple content types test:'),
          image,
          { type: 'resource', resource: MIXED_RESOURCE },
        ],
      };
    case 'test_tool_with_logging':
      for (const [index, message] of LOG_MESSAGES.entries()) {
        if (index > 0) await sleep(50);
        await log(message);
      }
      return { content: [text('Tool with logging executed successfully')] };
    case 'test_tool_with_progress': {
      const progressToken = request.params._meta?.progressToken;
      for (const [index, progress] of [0, 50, 100].entries()) {
        if (index > 0) await sleep(50);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `Completed step ${index + 1} of 3` },
          });
        }
      }
      return { content: [text('Tool with progress executed successfully')] };
    }
    case 'test_error_handling':
      return { isError: true, content: [text(ERROR_TEXT)] };
    case 'test_sampling': {
      const result = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: text(args.prompt) }], maxTokens: 100 },
        },
        CreateMessageResultSchema,
      );
      return { content: [text(`LLM response: ${samplingText(result)}`)] };
    }
    case 'test_elicitation': {
      const result = await elicit({ message: args.message, requestedSchema: USER_SCHEMA });
      return { content: [text(elicitationSummary('User response', result))] };
    }
    case 'test_elicitation_sep1034_defaults': {
      const result = await elicit({ message: 'Please review the defaults', requestedSchema: SEP1034_SCHEMA });
      return { content: [text(elicitationSummary('Elicitation completed', result))] };
    }
    case 'test_elicitation_sep1330_enums': {
      const result = await elicit({ message: 'Please select options', requestedSchema: SEP1330_SCHEMA });
      return { content: [text(elicitationSummary('Elicitation completed', result))] };
    }
    case 'json_schema_2020_12_tool':
      return { content: [text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)] };
    case 'test_reconnection':
      extra.closeSSEStream?.();
      await sleep(100);
      return { content: [text('Reconnection test completed successfully')] };
    default:
      return { isError: true, content: [text(`Unknown tool: ${request.params.name}`)] };
  }
}

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'Static text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A 1x1 PNG', mimeType: 'image/png' },
  {
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'Subscribable',
    mimeType: 'text/plain',
  },
];

function readResource(uri) {
  if (uri === 'test://static-text') return [{ uri, mimeType: 'text/plain', text: STATIC_TEXT }];
  if (uri === 'test://static-binary') return [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }];
  if (uri === 'test://watched-resource')
    return [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }];
  const match = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (match) {
    const id = decodeURIComponent(match[1]);
    return [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, data: `Data for ID: ${id}` }) }];
  }
  throw new Error(`Resource not found: ${uri}`);
}

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt with an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

function getPrompt(name, args = {}) {
  const user = (content) => ({ role: 'user', content });
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [user(text('This is a simple prompt for testing.'))] };
    case 'test_prompt_with_arguments':
      return { messages: [user(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`))] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          user({
            type: 'resource',
            resource: {
              uri: args.resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          }),
          user(text('Please process the embedded resource above.')),
        ],
      };
    case 'test_prompt_with_image':
      return { messages: [user(image), user(text('Please analyze the image above.'))] };
    default:
      throw new Error(`Unknown prompt: ${name}`);
  }
}

function createMcpServer() {
  const server = new Server(
    { name: 'sdk-baseline-conformance-server', version: '1.0.0' },
    {
      capabilities: {
        tools: {},
        resources: { subscribe: true },
        prompts: {},
        logging: {},
        completions: {},
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, callTool);
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: readResource(request.params.uri),
  }));
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    getPrompt(request.params.name, request.params.arguments),
  );
  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const values = completeArgument(request.params.argument.value);
    return { completion: { values, total: values.length, hasMore: false } };
  });
  server.setRequestHandler(SetLevelRequestSchema, () => ({}));
  return server;
}

// ---- HTTP ---------------------------------------------------------------------------------------

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function loopbackHost(host) {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOOPBACK.has(name.toLowerCase());
}

function allowed(req) {
  if (!loopbackHost(req.headers.host)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOOPBACK.has(new URL(origin).hostname.toLowerCase());
  } catch {
    return false;
  }
}

function reply(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

async function handle(req, res) {
  if (!allowed(req)) return reply(res, 403, 'Forbidden: Host or Origin not allowed');
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== '/mcp') return reply(res, 404, 'Not found');
  const sessionId = req.headers['mcp-session-id'];
  const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (req.method === 'POST') {
    let body;
    try {
      body = await readJson(req);
    } catch {
      return reply(res, 400, 'Parse error');
    }
    if (existing) return existing.handleRequest(req, res, body);
    if (sessionId === undefined && isInitializeRequest(body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        retryInterval: 500,
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await createMcpServer().connect(transport);
      return transport.handleRequest(req, res, body);
    }
    return reply(res, sessionId === undefined ? 400 : 404, 'No valid session');
  }
  if (req.method === 'GET' || req.method === 'DELETE') {
    if (!existing) return reply(res, sessionId === undefined ? 400 : 404, 'No valid session');
    return existing.handleRequest(req, res);
  }
  return reply(res, 405, 'Method not allowed');
}

const httpServer = createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error('sdk baseline server:', error);
    if (!res.headersSent) reply(res, 500, 'Internal error');
    else res.end();
  });
});

httpServer.listen(Number(options.port), options.host, () => {
  const { port } = httpServer.address();
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  console.log(`sdk baseline conformance server listening on http://${host}:${port}/mcp`);
});

function stop() {
  for (const transport of sessions.values()) void transport.close().catch(() => undefined);
  httpServer.closeAllConnections();
  httpServer.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
