// The floor of the gateway's design (issue 17): a relay made of toolwire's public APIs and nothing else —
// a `Server` on stdio whose tools are its upstream's, under the gateway's `fx__` names, each call handed
// to a `Client` with the caller's cancellation and the gateway's call options, its result handed back.
// No policy, approvals, rate limit, audit, digest, call log, events, progress or relayed questions: what the gateway
// adds to this is its own logic, and what this adds to the raw relay (bench/raw-relay.mjs) is the public
// server and client. The server and the client are set up as the gateway sets up its own (no tool timeout
// downstream, `auto` upstream, the upstream's tool definitions registered as they are, young collections on
// the main thread as `toolwire gateway --stdio` and `toolwire serve` have them). It exits when its stdin ends.
//   node bench/bare-relay.mjs [root] -- node bin/toolwire.mjs serve bench/fixture-server.mjs
// BARE_REVISION=2025-11-25 (any revision) pins the upstream's revision instead of `auto`.
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';

const dash = process.argv.indexOf('--');
const root = resolve(process.argv.slice(2, dash).find((a) => !a.startsWith('--')) ?? '.');
const [command, ...args] = process.argv.slice(dash + 1);
const load = (entry) => import(pathToFileURL(resolve(root, 'dist', entry)).href);
const [{ Server }, { Client }, { StdioClientTransport, StdioServerTransport }] = await Promise.all([
  load('server.js'),
  load('client.js'),
  load('stdio.js'),
]);

const client = new Client(
  { name: 'toolwire-bare-relay', version: '0.1.0' },
  { protocolVersion: process.env.BARE_REVISION ?? 'auto' },
);
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const server = new Server(
  { name: 'toolwire-bare-relay', version: '0.1.0' },
  { toolTimeout: false, rateLimit: false },
);
for (const tool of await client.listTools()) {
  const definition = { inputSchema: tool.inputSchema };
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.outputSchema !== undefined) definition.outputSchema = tool.outputSchema;
  server.tool(`fx__${tool.name}`, definition, (input, ctx) =>
    client.callTool(tool.name, input, {
      cancellation: ctx.cancellation,
      resetTimeoutOnProgress: true,
      validateOutput: false,
    }),
  );
}
const transport = new StdioServerTransport({
  onStdinClosed: () => void Promise.all([server.close(), client.close()]).then(() => process.exit(0)),
});
await server.connect(transport);
setFlagsFromString('--no-parallel-scavenge');
