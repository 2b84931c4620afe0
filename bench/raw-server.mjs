// The limit: a hand-written MCP server with no validation, no schemas, no library — only what an SDK
// client needs to connect and call `echo` (initialize, tools/list, tools/call, ping; notifications are
// dropped). The benchmark's real-client tables (bench/client-load.mjs) show it beside toolwire and the SDK.
//   node bench/raw-server.mjs                                (stdio, newline-delimited JSON-RPC)
//   node bench/raw-server.mjs --http --port P [--json]       (Streamable HTTP at /mcp, SSE or JSON answers)
// With --http the URL is printed on stdout. It never checks what it is sent beyond the method name.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { http: { type: 'boolean' }, port: { type: 'string' }, json: { type: 'boolean' } },
});

const TOOLS = {
  tools: [
    {
      name: 'echo',
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
};

/** The result of one request, or undefined for a notification (and for a method it does not know). */
function answer(message) {
  if (message.id === undefined) return undefined;
  const params = message.params ?? {};
  switch (message.method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: params.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-bench-server', version: '1.0.0' },
        },
      };
    case 'tools/list':
      return { jsonrpc: '2.0', id: message.id, result: TOOLS };
    case 'tools/call':
      return {
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: String(params.arguments?.text ?? '') }] },
      };
    case 'ping':
      return { jsonrpc: '2.0', id: message.id, result: {} };
    default:
      return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } };
  }
}

if (!values.http) {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let out = '';
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.length === 0) continue;
      const response = answer(JSON.parse(line));
      if (response) out += `${JSON.stringify(response)}\n`;
    }
    if (out) process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  const json = values.json ?? false;
  const http = createServer((req, res) => {
    if (req.method !== 'POST') {
      // No standalone stream, no session to delete: the SDK clients take 405 for both.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const response = answer(message);
      const headers = {};
      if (message.method === 'initialize') headers['mcp-session-id'] = randomUUID();
      if (!response) {
        res.writeHead(202, headers).end();
      } else if (json) {
        headers['content-type'] = 'application/json';
        res.writeHead(200, headers).end(JSON.stringify(response));
      } else {
        headers['content-type'] = 'text/event-stream';
        headers['cache-control'] = 'no-cache';
        res.writeHead(200, headers).end(`event: message\ndata: ${JSON.stringify(response)}\n\n`);
      }
    });
  });
  http.keepAliveTimeout = 60_000;
  await new Promise((resolve) => http.listen(Number(values.port ?? 3000), '127.0.0.1', resolve));
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  const stop = () => http.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
