// Profiles an HTTP server under the benchmark's HTTP load (16 connections, JSON mode) with
// `node --cpu-prof`, then prints the functions with the most self time and the heaviest files.
//   node bench/profile-http.mjs [stateful|stateless|stateless] [calls]
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCalls, spawnHttp } from './load.mjs';
import { printProfile } from './profile-report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
process.chdir(dirname(here));
const mode = process.argv[2] ?? 'stateful';
const calls = Number(process.argv[3] ?? 20_000);
const dir = join(here, 'profiles', `http-${mode}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
const args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs'];
args.push('--http', '--port', '0', '--json', ...(mode === 'stateless' ? ['--stateless'] : []));
const server = await spawnHttp(process.execPath, args);
const options = { connections: 16, stateful: mode === 'stateful', stateless: mode === 'stateless' };
await httpCalls(server, { ...options, total: 2000 });
const run = await httpCalls(server, { ...options, total: calls, maxMs: 60_000 });
await server.close();
console.log(
  `${mode}: ${run.calls} calls, ${Math.round(run.callsPerSec)} calls/s, ${run.cpuUsPerCall} µs CPU/call`,
);

printProfile(dir);
