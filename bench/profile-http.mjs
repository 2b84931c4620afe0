// Profiles an HTTP server under the benchmark's HTTP load (16 connections, JSON mode) with
// `node --cpu-prof`, then prints the functions with the most self time and the heaviest files.
//   node bench/profile-http.mjs [stateful|stateless|modern] [calls]
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCalls, spawnHttp } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
process.chdir(dirname(here));
const mode = process.argv[2] ?? 'stateful';
const calls = Number(process.argv[3] ?? 20_000);
const dir = join(here, 'profiles', `http-${mode}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
const args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs'];
args.push('--http', '--port', '0', '--json', ...(mode === 'stateless' ? ['--stateless'] : []));
const server = await spawnHttp(process.execPath, args);
const options = { connections: 16, stateful: mode === 'stateful', modern: mode === 'modern' };
await httpCalls(server, { ...options, total: 2000 });
const run = await httpCalls(server, { ...options, total: calls, maxMs: 60_000 });
await server.close();
console.log(
  `${mode}: ${run.calls} calls, ${Math.round(run.callsPerSec)} calls/s, ${run.cpuUsPerCall} µs CPU/call`,
);

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const files = new Map();
for (const id of profile.samples) {
  const { callFrame: f } = byId.get(id);
  const file = f.url ? f.url.replace(/^.*\//, '') : f.functionName;
  const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + 1);
  files.set(file, (files.get(file) ?? 0) + 1);
}
const total = profile.samples.length;
const top = (map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
console.log(
  `\ntop self time (${total} samples):\n${top(self, 30).join('\n')}\n\nby file:\n${top(files, 15).join('\n')}`,
);
