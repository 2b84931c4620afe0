// The conformance client adapter written with the official TypeScript SDK (1.x, a devDependency): a
// yardstick for the harness (scripts/conformance.mjs --sdk-baseline), not part of `npm test`.
// Same contract as index.mjs: server URL as the last argument, scenario in MCP_CONFORMANCE_SCENARIO.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;

function fail(message) {
  console.error(`sdk baseline client: ${message}`);
  process.exit(1);
}

if (!serverUrl || !/^https?:\/\//.test(serverUrl)) fail('expected the server URL as the last argument');

async function session(capabilities, body) {
  const client = new Client({ name: 'sdk-baseline-conformance-client', version: '1.0.0' }, { capabilities });
  if (capabilities.elicitation) {
    // With elicitation.form.applyDefaults the SDK fills the omitted fields from the schema defaults.
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: {} }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl)));
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

async function callOk(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} returned an error result: ${JSON.stringify(result.content)}`);
}

const scenarios = {
  initialize: () => session({}, async () => undefined),
  tools_call: () =>
    session({}, async (client) => {
      await client.listTools();
      await callOk(client, 'add_numbers', { a: 1, b: 2 });
    }),
  'elicitation-sep1034-client-defaults': () =>
    session({ elicitation: { form: { applyDefaults: true } } }, (client) =>
      callOk(client, 'test_client_elicitation_defaults', {}),
    ),
  'sse-retry': () => session({}, (client) => callOk(client, 'test_reconnection', {})),
};

const run = scenarios[scenario];
if (!run) fail(`unknown scenario ${scenario}`);
try {
  await run();
  process.exit(0);
} catch (error) {
  fail(`${scenario} failed: ${error instanceof Error ? error.message : String(error)}`);
}
