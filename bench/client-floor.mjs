// The client's half of a relay's cost (issue 17): the CPU per call of toolwire's public `Client` calling the
// fixture's `echo` over stdio, against a hand-written line client (JSON.stringify, a write, JSON.parse, a Map
// lookup) doing the same, each in a process of its own, in interleaved repetitions. Both send the 2026-07-28
// requests the gateway's client sends; the toolwire client with the gateway's call options.
//   taskset -c 0 node bench/client-floor.mjs [--reps=4] [--calls=20000]   # pinned: the steadier reading
import { spawn, execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureArgs } from './gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const calls = Number(arg('calls', 20_000));
const mode = arg('mode', undefined);

/** A client in this process: `call()` makes one tools/call, `close()` ends it. */
async function makeClient(kind) {
  const [command, ...args] = [process.execPath, ...fixtureArgs(root)];
  if (kind === 'toolwire') {
    const { Client } = await import('../dist/client.js');
    const { StdioClientTransport } = await import('../dist/stdio.js');
    const client = new Client({ name: 'client-floor', version: '1.0.0' }, { protocolVersion: 'auto' });
    await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    await client.listTools();
    const options = () => ({ timeout: 60_000, resetTimeoutOnProgress: true, validateOutput: false });
    return {
      call: async () => {
        if ((await client.callTool('echo', { text: 'hello' }, options())).isError) throw new Error('isError');
      },
      close: () => client.close(),
    };
  }
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map();
  let nextId = 0;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'client-floor', version: '1.0.0' },
  };
  return {
    call: async () => {
      const id = nextId++;
      const params = { name: 'echo', arguments: { text: 'hello' }, _meta };
      const answer = new Promise((resolve) => pending.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`);
      const message = await answer;
      if (!message.result || message.result.isError) throw new Error(JSON.stringify(message));
    },
    close: () => child.stdin.end(),
  };
}

/** This process's CPU per call at `inFlight`, after a warm-up. */
async function measure(client, inFlight, total) {
  const run = async (n) => {
    let sent = 0;
    const worker = async () => {
      while (sent++ < n) await client.call();
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  };
  await run(total);
  const before = process.cpuUsage();
  await run(total);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / total;
}

if (mode) {
  const client = await makeClient(mode);
  const out = { 16: await measure(client, 16, calls), 1: await measure(client, 1, calls / 2) };
  await client.close();
  console.log(JSON.stringify(out));
  process.exit(0);
}

const reps = Number(arg('reps', 4));
const results = { toolwire: { 16: [], 1: [] }, 'hand-written': { 16: [], 1: [] } };
for (let rep = 0; rep < reps; rep++) {
  for (const kind of rep % 2 ? ['hand-written', 'toolwire'] : ['toolwire', 'hand-written']) {
    const text = execFileSync(
      process.execPath,
      [fileURLToPath(import.meta.url), `--mode=${kind}`, `--calls=${calls}`],
      {
        encoding: 'utf8',
      },
    );
    const out = JSON.parse(text.trim().split('\n').pop());
    for (const k of [16, 1]) results[kind][k].push(out[k]);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${reps} interleaved reps; client CPU µs per call (this process), medians`);
for (const [kind, r] of Object.entries(results)) {
  console.log(
    `${kind.padEnd(12)}  16 in flight: ${median(r[16]).toFixed(2)}   1 in flight: ${median(r[1]).toFixed(2)}`,
  );
}
