// Instructions per call of the stdio fixture server, counted by valgrind's callgrind: a measure that does
// not move with the host's load (two runs of one build agree within ≈0.1%), for A/B comparisons of builds
// on a busy host, where CPU time per call moves by ±15%. Only the measured calls are counted
// (instrumentation is switched on after the warm-up and off after them); user-space instructions only, so
// a system call counts for its few instructions of libc, not for the kernel's work.
//
//   node bench/instructions.mjs [--roots=/tmp/before,.] [--calls=20000] [--in-flight=16] [--client=raw|sdk]
//
// `--roots`: checkouts to compare, each built (`npm run build`; `git worktree add /tmp/before COMMIT` and a
// node_modules symlink make one). `--client=raw`: bench/load.mjs's raw line generator (the `--in-flight`
// calls alternate echo and add); `sdk`: the official SDK 1.x client, 16 `echo` calls in flight, one request
// per write (the server wakes for each). Needs valgrind (`apt-get install valgrind`). A run of 20,000 calls
// takes ≈1–2 minutes per root (valgrind runs the server ≈50× slower).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { coldStart, serverEnv, stdioCalls } from './load.mjs';

const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const roots = arg('roots', '.')
  .split(',')
  .map((root) => resolve(root));
const calls = Number(arg('calls', '20000'));
const inFlight = Number(arg('in-flight', '16'));
const client = arg('client', 'raw');

/** valgrind's command line for a server of `root`, writing its counts to `out`. */
function valgrind(root, out) {
  return [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    'node',
    `${root}/bin/toolwire.mjs`,
    'serve',
    `${root}/bench/fixture-server.mjs`,
  ];
}

const instrument = (pid, on) => execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(pid)]);

/** The raw generator: warm-up, then `calls` counted; the server exits when its stdin ends. */
async function rawRun(root, out) {
  const { peer } = await coldStart('valgrind', valgrind(root, out));
  await stdioCalls(peer, { total: 20_000, inFlight: 16, maxMs: 600_000 });
  instrument(peer.pid, true);
  await stdioCalls(peer, { total: calls, inFlight, maxMs: 1_200_000 });
  instrument(peer.pid, false);
  peer.child.stdin.end();
  await peer.exited;
}

/** The SDK 1.x client, 16 calls in flight; valgrind is given time to write its counts as the client closes. */
async function sdkRun(root, out) {
  const transport = new StdioClientTransport({
    command: 'valgrind',
    args: valgrind(root, out),
    env: serverEnv(),
    stderr: 'ignore',
  });
  const sdk = new Client({ name: 'toolwire-bench-instructions', version: '1.0.0' });
  await sdk.connect(transport, { timeout: 600_000 });
  const run = async (total) => {
    let sent = 0;
    const worker = async () => {
      while (sent < total) {
        sent += 1;
        await sdk.callTool({ name: 'echo', arguments: { text: 'hello' } }, undefined, { timeout: 600_000 });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  };
  await run(8_000);
  instrument(transport.pid, true);
  await run(calls);
  instrument(transport.pid, false);
  execFileSync('callgrind_control', ['--dump', String(transport.pid)]);
  await sdk.close();
}

/** Instructions counted in the dump(s) callgrind wrote to `out` (a `--dump` writes `out.1`). */
async function counted(out) {
  for (let i = 0; i < 300; i++) {
    for (const file of [`${out}.1`, out]) {
      let text;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const totals = /^totals: (\d+)/m.exec(text);
      if (totals) return Number(totals[1]);
    }
    await sleep(200);
  }
  throw new Error(`no counts in ${out}`);
}

const results = [];
for (const root of roots) {
  const out = `/tmp/toolwire-instructions-${process.pid}-${results.length}.out`;
  await (client === 'sdk' ? sdkRun(root, out) : rawRun(root, out));
  const perCall = (await counted(out)) / calls;
  results.push({ root, perCall });
  rmSync(out, { force: true });
  rmSync(`${out}.1`, { force: true });
  const ratio = results.length > 1 ? ` (${(perCall / results[0].perCall).toFixed(3)}× the first)` : '';
  console.log(`${root}: ${Math.round(perCall).toLocaleString('en-US')} instructions per call${ratio}`);
}
