// The benchmark fixture (see fixture-server.mjs) on the official SDK 1.x (McpServer + zod).
//   node bench/sdk-v1-server.mjs                                   (stdio)
//   node bench/sdk-v1-server.mjs --http --port P [--stateless] [--json]   (Streamable HTTP at /mcp)
// With --http the URL is printed on stdout. MCP_BENCH_EXTRA_TOOLS=N adds dummy_0 … dummy_{N-1}.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const EXTRA = Number(process.env.MCP_BENCH_EXTRA_TOOLS ?? 0);

function createServer() {
  const server = new McpServer({ name: 'sdk-v1-bench-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
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
        inputSchema: {
          query: z.string().describe('What to look for'),
          limit: z.number().int().min(1).max(100).optional(),
          verbose: z.boolean().optional(),
        },
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

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

if (!values.http) {
  await createServer().connect(new StdioServerTransport());
} else {
  const json = values.json ?? false;
  const sessions = new Map();
  const http = createHttpServer(async (req, res) => {
    try {
      if (!req.url?.startsWith('/mcp')) {
        res.writeHead(404).end();
        return;
      }
      if (values.stateless) {
        const body = req.method === 'POST' ? await readBody(req) : undefined;
        const server = createServer();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: json,
        });
        res.on('close', () => void transport.close().then(() => server.close()));
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      const sid = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || sid !== undefined || !isInitializeRequest(body)) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad session' }, id: null }),
          );
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await createServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  http.keepAliveTimeout = 60_000;
  await new Promise((resolve) => http.listen(Number(values.port ?? 3000), '127.0.0.1', resolve));
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  const stop = () => http.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
