// The soak's server (npm run soak): the benchmark fixture (bench/fixture-server.mjs: echo, add, no global
// rate limit) plus `memory`, which collects garbage (the server runs with --expose-gc) and reports the heap
// left and the RSS, so a leak shows as a heap that grows from one reading to the next.
import { structured } from '../dist/server.js';
import createFixtureServer from './fixture-server.mjs';

export default function createSoakServer() {
  const server = createFixtureServer();
  server.tool('memory', { description: 'Heap after a full GC, and RSS, in bytes' }, () => {
    globalThis.gc?.();
    const { heapUsed, heapTotal, rss, external } = process.memoryUsage();
    return structured({ heapUsed, heapTotal, rss, external, gc: typeof globalThis.gc === 'function' });
  });
  return server;
}
