import { Server, text } from 'toolwire/server';
import { StdioServerTransport } from 'toolwire/stdio';

const server = new Server({ name: 'hello', version: '1.0.0' });
// `@type {const}` keeps the literal types, so an editor types the handler's arguments as { name: string }.
const inputSchema = /** @type {const} */ ({
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
});

server.tool('greet', { description: 'Greets someone by name', inputSchema }, ({ name }) =>
  text(`Hello, ${name}!`),
);

await server.connect(new StdioServerTransport());
