// The toolwire client under the MCP conformance suite (client mode): a small adapter over the toolwire
// Client and its Streamable HTTP transport, built from the package in dist/.
//
// The suite runs `node examples/conformance-client/index.mjs <serverUrl>` with the scenario's name in
// MCP_CONFORMANCE_SCENARIO (scripts/conformance.mjs runs every client scenario of both suite versions, one
// at a time). The 0.2.0 alphas also set MCP_CONFORMANCE_PROTOCOL_VERSION (the revision to speak:
// 2026-07-28 pins the stateless era, a handshake-era revision leaves the client's default). Some
// scenarios give MCP_CONFORMANCE_CONTEXT (JSON: the tool calls to make, pre-registered OAuth credentials,
// keys, assertions). Every `auth/*` scenario goes through toolwire's OAuthClient (the transport's `oauth`
// option): the suite's authorization server redirects at once, so the authorize handler follows the
// authorization URL without a browser and hands back the redirect it got.
// Exits 0 once the scenario's steps succeeded, 1 with a message otherwise.

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const STATELESS_ERA = '2026-07-28';

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
const { OAuthClient, StreamableHttpClientTransport } = await load(
  'toolwire/http-client',
  'the HTTP client transports (toolwire/http-client) are not in dist/ yet; build them (npm run build) once they exist',
);
if (typeof StreamableHttpClientTransport !== 'function') {
  fail('toolwire/http-client does not export StreamableHttpClientTransport');
}

const INFO = { name: 'toolwire-conformance-client', version: '1.0.0' };

// Guard: a stateless-era scenario needs a Client that speaks 2026-07-28 (it reports its era once connected).
const speaksStatelessEra = Object.getOwnPropertyDescriptor(Client.prototype, 'era') !== undefined;
if (protocolVersion === STATELESS_ERA && !speaksStatelessEra) {
  fail(`this toolwire Client does not speak the stateless era (${STATELESS_ERA}) yet`);
}

/** The scenario's context (MCP_CONFORMANCE_CONTEXT), `{}` when there is none. */
function context() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  try {
    return JSON.parse(raw);
  } catch {
    fail(`MCP_CONFORMANCE_CONTEXT is not JSON: ${raw.slice(0, 200)}`);
  }
}

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

async function session(options, body, transportOptions = {}) {
  const era = protocolVersion === STATELESS_ERA ? { protocolVersion } : {};
  const client = new Client(INFO, { ...era, ...options });
  await client.connect(new StreamableHttpClientTransport({ url: serverUrl, ...transportOptions }));
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

/** Arguments that satisfy the required properties of a simple object schema. */
function sampleArguments(inputSchema) {
  const samples = { string: 'x', integer: 1, number: 1, boolean: true, object: {}, array: [], null: null };
  const args = {};
  for (const name of inputSchema?.required ?? []) {
    const type = inputSchema.properties?.[name]?.type;
    args[name] = samples[Array.isArray(type) ? type[0] : type] ?? 'x';
  }
  return args;
}

/** Answers every kind of server request (handshake era) or input request (stateless era). */
const ANSWER_EVERYTHING = {
  elicitation: (params) => ({
    action: 'accept',
    content: { confirmed: true, ...defaultsOf(params.requestedSchema) },
  }),
  sampling: () => ({
    role: 'assistant',
    content: { type: 'text', text: 'conformance sample' },
    model: 'conformance-model',
    stopReason: 'endTurn',
  }),
  roots: [{ uri: 'file:///conformance', name: 'conformance' }],
};

/** Lists the skills and loads each one; a skill that fails verification is refused (and reported). */
function loadEverySkill() {
  return session({ skills: true }, async (client) => {
    for (const entry of await client.listSkills()) {
      try {
        const skill = await client.loadSkill(entry);
        console.log(`loaded ${entry.uri}: ${skill.files.length} verified file(s)`);
      } catch (error) {
        if (error?.code !== 'INVALID_RESULT' || error.details?.check === undefined) throw error;
        console.log(`refused ${entry.uri}: ${error.message}`);
      }
    }
  });
}

// ---- OAuth (auth/*) ----

/** The client's Client ID Metadata Document URL, which the suite's authorization servers accept as is. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Never listened on: the authorize handler reads the redirect instead of a browser following it. */
const REDIRECT_URL = 'http://localhost:3000/callback';

/** A headless "browser": asks the authorization endpoint and returns where it redirects (the callback). */
async function followAuthorization(authorizationUrl, signal) {
  const response = await fetch(authorizationUrl, { redirect: 'manual', signal });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${response.status}, no redirect`);
  return new URL(location, authorizationUrl);
}

/** The OAuthClient a scenario calls for, from its context. */
function oauthClient(ctx) {
  const common = { clientMetadata: { client_name: INFO.name } };
  switch (scenario) {
    case 'auth/client-credentials-jwt':
      return new OAuthClient({
        ...common,
        grant: 'client_credentials',
        clientId: ctx.client_id,
        privateKey: ctx.private_key_pem,
        signingAlgorithm: ctx.signing_algorithm,
      });
    case 'auth/client-credentials-basic':
      return new OAuthClient({
        ...common,
        grant: 'client_credentials',
        clientId: ctx.client_id,
        clientSecret: ctx.client_secret,
      });
    case 'auth/wif-jwt-bearer':
      return new OAuthClient({
        ...common,
        grant: 'jwt_bearer',
        clientId: ctx.client_id,
        assertion: ctx.valid_jwt,
      });
    case 'auth/enterprise-managed-authorization':
    case 'auth/cross-app-access-complete-flow':
      return new OAuthClient({
        ...common,
        grant: 'enterprise_managed',
        clientId: ctx.client_id,
        clientSecret: ctx.client_secret,
        identityProvider: {
          issuer: ctx.idp_issuer,
          tokenEndpoint: ctx.idp_token_endpoint,
          clientId: ctx.idp_client_id,
          idToken: ctx.idp_id_token,
        },
      });
    default:
      // A person signs in (authorization code + PKCE); pre-registered credentials when the scenario gives them.
      return new OAuthClient({
        ...common,
        redirectUrl: REDIRECT_URL,
        authorize: followAuthorization,
        clientMetadataUrl: CLIENT_METADATA_URL,
        ...(ctx.client_id ? { clientId: ctx.client_id, clientSecret: ctx.client_secret } : {}),
      });
  }
}

/** Every auth scenario: connect, list the tools and call `test-tool`, all authorized by the OAuthClient. */
function authorizedSession() {
  const oauth = oauthClient(context());
  return session(
    {},
    async (client) => {
      const tools = await client.listTools();
      console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
      await callOk(client, 'test-tool', {});
      console.log(`authorized: ${JSON.stringify(await oauth.status(serverUrl))}`);
    },
    { oauth },
  );
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

  // ---- 0.2.0-alpha (2026-07-28) ----

  // _meta on every request, the MCP-Protocol-Version header, and a retry after a first -32022.
  'request-metadata': () =>
    session(ANSWER_EVERYTHING, async (client) => {
      const tools = await client.listTools();
      console.log(`tools: ${tools.length} (protocol ${client.protocolVersion})`);
    }),

  // MRTR: echo requestState exactly, omit it when none came, keep flows apart, no resultType = complete.
  'sep-2322-client-request-state': () =>
    session(ANSWER_EVERYTHING, async (client) => {
      await client.listTools();
      await Promise.all([
        callOk(client, 'test_mrtr_echo_state', {}),
        callOk(client, 'test_mrtr_unrelated', {}),
      ]);
      await callOk(client, 'test_mrtr_no_state', {});
      await callOk(client, 'test_mrtr_no_result_type', {});
    }),

  // Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get.
  'http-standard-headers': () =>
    session({}, async (client) => {
      for (const tool of await client.listTools()) await callOk(client, tool.name, {});
      for (const resource of await client.listResources()) await client.readResource(resource.uri);
      for (const prompt of await client.listPrompts()) await client.getPrompt(prompt.name);
    }),

  // Mcp-Param-* headers mirrored from x-mcp-header parameters: the calls come in the scenario's context.
  'http-custom-headers': () =>
    session({}, async (client) => {
      await client.listTools();
      const calls = context().toolCalls ?? [];
      if (calls.length === 0) throw new Error('MCP_CONFORMANCE_CONTEXT has no toolCalls');
      for (const call of calls) await callOk(client, call.name, call.arguments ?? {});
    }),

  // Tools with an invalid x-mcp-header must not even be listed; every listed tool is called.
  'http-invalid-tool-headers': () =>
    session({}, async (client) => {
      const tools = await client.listTools();
      console.log(`tools kept: ${tools.map((tool) => tool.name).join(', ')}`);
      for (const tool of tools) await callOk(client, tool.name, sampleArguments(tool.inputSchema));
    }),

  // Listing (and validating against) a schema with a network $ref must not fetch it.
  'json-schema-ref-no-deref': () =>
    session({}, async (client) => {
      const tools = await client.listTools();
      console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
    }),

  // The inputSchema the client holds goes back verbatim, so the suite can see which keywords survived.
  'json-schema-2020-12-preservation': () =>
    session({}, async (client) => {
      const tools = await client.listTools();
      const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
      await callOk(client, 'json_schema_echo', { schema: focal.inputSchema });
    }),

  // The skills extension (SEP-2640): list without reading any skill file.
  'sep-2640-client-no-prefetch': () =>
    session({ skills: true }, async (client) => {
      const skills = await client.listSkills();
      console.log(`skills: ${skills.map((skill) => skill.uri).join(', ')}`);
    }),

  // Loading a skill verifies every file (SKILL.md first) against its entry: the tampered SKILL.md must be
  // refused and nothing after it read.
  'sep-2640-client-verify-digest': () => loadEverySkill(),
  'sep-2640-client-verify-size': () => loadEverySkill(),
  'sep-2640-client-verify-frontmatter': () => loadEverySkill(),
};

const run = scenarios[scenario] ?? (scenario.startsWith('auth/') ? authorizedSession : undefined);
if (!run) fail(`unknown scenario ${scenario} (known: ${Object.keys(scenarios).join(', ')})`);

try {
  await run();
  process.exit(0);
} catch (error) {
  fail(`${scenario} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
