// The benchmark fixture for toolwire (issue 6). A stable contract, so any load generator can use it:
//   node bin/toolwire.mjs serve bench/fixture-server.mjs                      (stdio)
//   node bin/toolwire.mjs serve bench/fixture-server.mjs --http --port P [--stateless] [--json]
// Tools: `echo {text}` -> the text; `add {a,b}` -> `{sum}` as text + structuredContent (with an
// outputSchema); `dummy_0 … dummy_{N-1}` (3-property input schemas) when MCP_BENCH_EXTRA_TOOLS=N.
import { Server, structured, text } from '../dist/server.js';

export default function createFixtureServer(options = {}) {
  // The default global rate limit (20,000 calls/s, burst 20,000) would answer a pipelined load test, which
  // runs faster than that, with -31429; the official SDKs have none, so the fixture turns it off. Every other built-in stays on.
  // `options` (server options) are for servers built on the fixture (the soak's); `serve` gives none.
  const server = new Server(
    { name: 'toolwire-bench-fixture', version: '1.0.0' },
    { rateLimit: false, ...options },
  );
  server.tool(
    'echo',
    {
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    ({ text: value }) => text(value),
  );
  server.tool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
    ({ a, b }) => structured({ sum: a + b }),
  );
  const extra = Number(process.env.MCP_BENCH_EXTRA_TOOLS ?? 0);
  for (let i = 0; i < extra; i++) {
    server.tool(
      `dummy_${i}`,
      {
        description: `Dummy tool number ${i}, for tools/list`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to look for' },
            limit: { type: 'integer', minimum: 1, maximum: 100 },
            verbose: { type: 'boolean' },
          },
          required: ['query'],
        },
      },
      () => text(`dummy ${i}`),
    );
  }
  return server;
}
