import { Client } from 'toolwire/client';
import { StdioClientTransport } from 'toolwire/stdio';

const client = new Client({ name: 'hello-client', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({ command: 'node', args: ['examples/getting-started/server.mjs'] }),
);

const tools = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));
const result = await client.callTool('greet', { name: 'Ada' });
console.log(result.content[0].text);
await client.close();
