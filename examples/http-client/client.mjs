import { Client } from 'toolwire/client';
import { StreamableHttpClientTransport } from 'toolwire/http-client';

// The server's MCP endpoint: `node examples/http-client/server.mjs` prints it.
const url = process.argv[2] ?? 'http://127.0.0.1:3000/mcp';

const client = new Client({ name: 'hello-http-client', version: '1.0.0' });
await client.connect(new StreamableHttpClientTransport({ url }));

const tools = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));
const result = await client.callTool('greet', { name: 'Ada' });
const [first] = result.content;
console.log(first?.type === 'text' ? first.text : first);
await client.close(); // ends the session (DELETE)
