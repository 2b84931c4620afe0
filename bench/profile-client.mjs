// Profiles a server under the real-client driver (bench/client-load.mjs: an official SDK client, one
// session, 16 `echo` calls in flight) with `node --cpu-prof`, then prints the functions with the most
// self time and the heaviest files. Profiles land in bench/profiles/.
//   node bench/profile-client.mjs [sse|json|stdio] [v1|v2] [toolwire|sdk1|raw] [calls]
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_PATHS, CLIENT_SERVERS, clientRun } from './client-load.mjs';
import { printProfile } from './profile-report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
process.chdir(dirname(here));
const [pathId = 'sse', sdk = 'v1', serverId = 'toolwire', count = '10000'] = process.argv.slice(2);
const path = CLIENT_PATHS.find((p) => p.id === pathId);
const server = CLIENT_SERVERS.find((s) => s.id === serverId);
if (!path || !server || !['v1', 'v2'].includes(sdk)) {
  console.error('usage: node bench/profile-client.mjs [sse|json|stdio] [v1|v2] [toolwire|sdk1|raw] [calls]');
  process.exit(2);
}
const dir = join(here, 'profiles', `client-${pathId}-${sdk}-${serverId}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
const profiled = { ...server, script: ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...server.script] };
const total = Number(count);
const run = await clientRun(sdk, path, profiled, {
  stdio: { warm: 10_000, total },
  http: { warm: 2000, total },
});
console.log(
  `${pathId}, SDK ${sdk} client, ${serverId}: ${run.calls} calls, ${Math.round(run.callsPerSec)} calls/s, ${run.cpuUsPerCall.toFixed(1)} µs CPU/call`,
);
printProfile(dir);
