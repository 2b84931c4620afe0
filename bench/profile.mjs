// Profiles a server under the stdio pipelined load (16 in flight) with `node --cpu-prof`, then prints
// the functions with the most self time (and the heaviest files). Profiles land in bench/profiles/.
//   node bench/profile.mjs [toolwire|sdk1|sdk2|gateway|bare] [calls] [--stateless] [--redis] [--in-flight=16]
//   (--stateless: 2026-07-28 calls, no initialize; --redis: the gateway on a throwaway redis-server)
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureArgs, gatewayArgs } from './gateway.mjs';
import { StdioPeer, stdioCalls } from './load.mjs';
import { printProfile } from './profile-report.mjs';
import { startRedisServer } from '../scripts/redis.mjs';

const here = dirname(fileURLToPath(import.meta.url));
process.chdir(dirname(here));
const stateless = process.argv.includes('--stateless');
const [which = 'toolwire', count] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const redis = process.argv.includes('--redis') ? await startRedisServer() : undefined;
const calls = Number(count ?? 30_000);
const script = {
  toolwire: fixtureArgs(),
  sdk1: ['bench/sdk-v1-server.mjs'],
  sdk2: ['bench/sdk-v2-server.mjs'],
  // The gateway process (not its upstream, the fixture): see bench/gateway.mjs.
  gateway: gatewayArgs('.', redis ? ['--redis', redis.url] : []),
  // The relay of the public server and client with no gateway logic (bench/bare-relay.mjs), not its upstream.
  bare: ['bench/bare-relay.mjs', '.', '--', process.execPath, ...fixtureArgs()],
}[which];
const prefix = which === 'gateway' || which === 'bare' ? 'fx__' : '';
const dir = join(here, 'profiles', `${which}-${Date.now()}`);
mkdirSync(dir, { recursive: true });

const peer = new StdioPeer('node', [
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
  ...(process.env.PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.PROF_INTERVAL}`] : []),
  ...script,
]);
if (!stateless) await peer.initialize();
await stdioCalls(peer, { total: 2000, inFlight: 16, stateless, prefix });
const inFlight = Number(process.argv.find((a) => a.startsWith('--in-flight='))?.slice(12) ?? 16);
const run = await stdioCalls(peer, { total: calls, inFlight, maxMs: 60_000, stateless, prefix });
await peer.close();
await redis?.close();
console.log(
  `${which}: ${run.calls} calls, ${Math.round(run.callsPerSec)} calls/s, ${run.cpuUsPerCall} µs CPU/call`,
);

printProfile(dir);
