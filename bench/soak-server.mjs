// The soak's server (npm run soak): the benchmark fixture (bench/fixture-server.mjs: echo, add, no global
// rate limit) plus `memory`, which collects garbage (the server runs with --expose-gc) and reports the heap
// left and the RSS, so a leak shows as a heap that grows from one reading to the next; and `task_echo`,
// `echo` that may run as a task (the soak's `tasks` mode asks it to, with a short ttl).
import { structured, text } from '../dist/server.js';
import createFixtureServer from './fixture-server.mjs';

export default function createSoakServer() {
  // Tasks are kept 2 s (the 2026-07-28 form has no ttl of the client's; the 2025-11-25 one asks for 2 s).
  const server = createFixtureServer({ tasks: { ttlMs: 2_000 } });
  server.tool('memory', { description: 'Heap after a full GC, and RSS, in bytes' }, () => {
    globalThis.gc?.();
    const { heapUsed, heapTotal, rss, external } = process.memoryUsage();
    return structured({ heapUsed, heapTotal, rss, external, gc: typeof globalThis.gc === 'function' });
  });
  server.tool(
    'task_echo',
    {
      description: 'Echoes text; may run as a task',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      task: 'optional',
    },
    ({ text: value }) => text(value),
  );
  return server;
}
