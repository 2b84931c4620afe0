// The toolwire client under the MCP conformance suite (client mode): a small adapter over the toolwire
// Client and its Streamable HTTP transport, built from the package in dist/.
//
// The suite runs `node examples/conformance-client/index.mjs <serverUrl>` with the scenario's name in
// MCP_CONFORMANCE_SCENARIO (scripts/conformance.mjs runs the 4 core scenarios one at a time).
// Exits 0 once the scenario's steps succeeded, 1 with a message otherwise.

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;

function fail(message) {
  console.error(`conformance client: ${message}`);
  process.exit(1);
}

if (!serverUrl || !/^https?:\/\//.test(serverUrl)) fail(`expected the server URL as the last argument`);
if (!scenario) fail('MCP_CONFORMANCE_SCENARIO is not set');

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

const { Client } = await load('toolwire/client', 'build the package first (npm run build)');
const { StreamableHttpClientTransport } = await load(
  'toolwire/http-client',
  'the HTTP client transports (toolwire/http-client) are not in dist/ yet; build them (npm run build) once they exist',
);
if (typeof StreamableHttpClientTransport !== 'function') {
  fail('toolwire/http-client does not export StreamableHttpClientTransport');
}

const INFO = { name: 'toolwire-conformance-client', version: '1.0.0' };

/** The answer to a form elicitation: every field that has a default, set to it. */
function defaultsOf(requestedSchema) {
  const content = {};
  for (const [name, property] of Object.entries(requestedSchema?.properties ?? {})) {
    if (property && typeof property === 'object' && 'default' in property) content[name] = property.default;
  }
  return content;
}

function textOf(result) {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join(' ');
}

async function session(options, body) {
  const client = new Client(INFO, options);
  await client.connect(new StreamableHttpClientTransport({ url: serverUrl }));
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

async function callOk(client, name, args) {
  const result = await client.callTool(name, args);
  if (result.isError) throw new Error(`${name} returned an error result: ${textOf(result)}`);
  console.log(`${name}: ${textOf(result)}`);
  return result;
}

const scenarios = {
  initialize: () =>
    session({}, async (client) => {
      console.log(`initialized: ${client.serverInfo?.name} (protocol ${client.protocolVersion})`);
    }),

  tools_call: () =>
    session({}, async (client) => {
      const tools = await client.listTools();
      console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
      await callOk(client, 'add_numbers', { a: 1, b: 2 });
    }),

  'elicitation-sep1034-client-defaults': () =>
    session(
      {
        capabilities: { elicitation: { form: { applyDefaults: true } } },
        elicitation: (params) => ({ action: 'accept', content: defaultsOf(params.requestedSchema) }),
      },
      (client) => callOk(client, 'test_client_elicitation_defaults', {}),
    ),

  // The server closes the call's SSE stream after a priming event with `retry: 500`; the transport must
  // wait that long, reconnect with GET + Last-Event-ID and take the result from that stream.
  'sse-retry': () => session({}, (client) => callOk(client, 'test_reconnection', {})),
};

const run = scenarios[scenario];
if (!run) fail(`unknown scenario ${scenario} (known: ${Object.keys(scenarios).join(', ')})`);

try {
  await run();
  process.exit(0);
} catch (error) {
  fail(`${scenario} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
