import { serveHttp } from 'toolwire/http';
import { Server, text } from 'toolwire/server';

const server = new Server({ name: 'hello-http', version: '1.0.0' });
const inputSchema = /** @type {const} */ ({
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
});

server.tool('greet', { description: 'Greets someone by name', inputSchema }, ({ name }) =>
  text(`Hello, ${name}!`),
);

// Port 3000 unless given (0 picks a free one); the endpoint's URL is the first line on stdout.
const { url } = await serveHttp(server, { port: Number(process.argv[2] ?? 3000) });
console.log(url);
