// A toolwire server module with one resource and one prompt, for bench/gc-survivors.mjs --method=… (what
// `resources/read` and `prompts/get` leave for the garbage collector):
//   node bin/toolwire.mjs serve bench/resource-server.mjs
import { Server } from '../dist/server.js';

export default function createResourceServer() {
  const server = new Server({ name: 'toolwire-bench-resources', version: '1.0.0' }, { rateLimit: false });
  server.resource('bench://note', { name: 'note', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, text: 'hello, benchmark' }],
  }));
  server.prompt(
    'greet',
    { description: 'Greets someone', arguments: [{ name: 'who', required: true }] },
    ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }] }),
  );
  return server;
}
