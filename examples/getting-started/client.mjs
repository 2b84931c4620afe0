import { fileURLToPath } from 'node:url';
import { Client } from 'toolwire/client';
import { StdioClientTransport } from 'toolwire/stdio';

// The server beside this file, whatever the working directory.
const serverPath = fileURLToPath(new URL('./server.mjs', import.meta.url));

const client = new Client({ name: 'hello-client', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath] }));

const tools = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));
const result = await client.callTool('greet', { name: 'Ada' });
const [first] = result.content;
console.log(first?.type === 'text' ? first.text : first);
await client.close();
