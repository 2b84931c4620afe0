// The gateway's CPU per call with batches made alike: 16 tools/call written at once, the next 16 once all
// are answered, so the gateway and its upstream read and write the same batches whatever the host's load
// (in the pipelined rows of bench/gateway.mjs, batch sizes, and so the CPU per call, move with it). Prints
// the gateway's and its upstream's CPU per call (medians of the repetitions) and their ratio.
//
//   node bench/gateway-burst.mjs [--reps=5] [--bursts=1500] [--size=16]     (after `npm run build`)
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioPeer, cpuMicros } from './load.mjs';

process.chdir(dirname(dirname(fileURLToPath(import.meta.url))));
const flag = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const reps = flag('reps', 5);
const bursts = flag('bursts', 1500);
const size = flag('size', 16);
const FIXTURE = ['bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs'];
const GATEWAY = 'bin/toolwire.mjs gateway --stdio --default allow --api-port 0 --upstream fx --'.split(' ');

/** `count` bursts of `size` calls (echo and add, alternately), each burst in one write. */
async function burstCalls(peer, count) {
  for (let b = 0; b < count; b++) {
    const answers = [];
    let text = '';
    for (let i = 0; i < size; i++) {
      const id = peer.nextId++;
      answers.push(new Promise((resolve) => peer.pending.set(id, resolve)));
      const params =
        id & 1
          ? { name: 'fx__add', arguments: { a: id, b: 1 } }
          : { name: 'fx__echo', arguments: { text: 'hello, benchmark' } };
      text += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`;
    }
    peer.child.stdin.write(text);
    const results = await Promise.all(answers);
    if (results.some((r) => !r.result || r.result.isError))
      throw new Error('a call through the gateway failed');
  }
}

const gateway = [];
const upstream = [];
for (let rep = 0; rep < reps; rep++) {
  const peer = new StdioPeer(process.execPath, [...GATEWAY, process.execPath, ...FIXTURE]);
  try {
    await peer.initialize();
    await burstCalls(peer, 2500); // warm-up
    const child = Number(readFileSync(`/proc/${peer.pid}/task/${peer.pid}/children`, 'utf8').trim());
    const [g0, u0] = [cpuMicros(peer.pid), cpuMicros(child)];
    await burstCalls(peer, bursts);
    gateway.push((cpuMicros(peer.pid) - g0) / (bursts * size));
    upstream.push((cpuMicros(child) - u0) / (bursts * size));
  } finally {
    await peer.close();
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => xs.map((x) => x.toFixed(1)).join(' ');
console.log(
  `gateway ${median(gateway).toFixed(2)} µs/call, upstream ${median(upstream).toFixed(2)} µs/call, ratio ${(median(gateway) / median(upstream)).toFixed(2)}× (target ≤ 1.5×)`,
);
console.log(`  gateway per rep: ${fmt(gateway)}; upstream per rep: ${fmt(upstream)}`);
