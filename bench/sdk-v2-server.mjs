// The benchmark fixture (see fixture-server.mjs) on the official SDK 2.x (@modelcontextprotocol/server).
//   node bench/sdk-v2-server.mjs                          (stdio)
//   node bench/sdk-v2-server.mjs --http --port P [--json] (createMcpHandler at /mcp: per-request,
//                                                          i.e. stateless; a minimal node:http adapter)
// With --http the URL is printed on stdout. MCP_BENCH_EXTRA_TOOLS=N adds dummy_0 … dummy_{N-1}.
import { createServer as createHttpServer } from 'node:http';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const EXTRA = Number(process.env.MCP_BENCH_EXTRA_TOOLS ?? 0);

function createServer() {
  const server = new McpServer({ name: 'sdk-v2-bench-fixture', version: '2.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => {
      const output = { sum: a + b };
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    },
  );
  for (let i = 0; i < EXTRA; i++) {
    server.registerTool(
      `dummy_${i}`,
      {
        description: `Dummy tool number ${i}, for tools/list`,
        inputSchema: z.object({
          query: z.string().describe('What to look for'),
          limit: z.number().int().min(1).max(100).optional(),
          verbose: z.boolean().optional(),
        }),
      },
      async () => ({ content: [{ type: 'text', text: `dummy ${i}` }] }),
    );
  }
  return server;
}

const { values } = parseArgs({
  options: {
    http: { type: 'boolean' },
    port: { type: 'string' },
    stateless: { type: 'boolean' },
    json: { type: 'boolean' },
  },
});

if (!values.http) {
  await createServer().connect(new StdioServerTransport());
} else {
  const handler = createMcpHandler(() => createServer(), { responseMode: values.json ? 'json' : 'sse' });
  const http = createHttpServer(async (req, res) => {
    try {
      const url = `http://${req.headers.host ?? '127.0.0.1'}${req.url}`;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const request = new Request(url, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
        signal: controller.signal,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) Readable.fromWeb(response.body).pipe(res);
      else res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.end();
    }
  });
  http.keepAliveTimeout = 60_000;
  await new Promise((resolve) => http.listen(Number(values.port ?? 3000), '127.0.0.1', resolve));
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  const stop = () => http.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
