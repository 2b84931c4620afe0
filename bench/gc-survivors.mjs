// What survives V8's young-generation collections in the gateway (or the fixture alone) under the stdio
// pipelined load: the bytes promoted and the pause per scavenge, and the full collections, from
// `--trace-gc-nvp` (the protocol moved to fd 3 by bench/protocol-fd3-preload.mjs). The measure that found the
// engine's `Map` of requests in flight keeping every relayed call alive (bench/README.md, "Fifth session").
// Not timing: the bytes promoted are steady from run to run.
//
//   node bench/gc-survivors.mjs [--roots=.,/tmp/before] [--fixture | --http-upstream] [--calls=40000]
//   node bench/gc-survivors.mjs --method=resources/read|prompts/get [--roots=…]
//   (--http-upstream: the gateway's upstream is the fixture served over Streamable HTTP, JSON answers;
//   --method: that request to bench/resource-server.mjs, served alone, instead of tools/call)
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureArgs, gatewayArgs } from './gateway.mjs';
import { cpuMicros, initializeParams, spawnHttp } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const calls = Number(arg('calls', 40_000));
const method = arg('method', 'tools/call');
const METHOD_PARAMS = {
  'resources/read': { uri: 'bench://note' },
  'prompts/get': { name: 'greet', arguments: { who: 'benchmark' } },
};
if (method !== 'tools/call' && !METHOD_PARAMS[method])
  throw new Error(`--method: tools/call, ${Object.keys(METHOD_PARAMS)}`);
const fixture = process.argv.includes('--fixture') || method !== 'tools/call';
const httpUpstream = process.argv.includes('--http-upstream');
const prefix = fixture ? '' : 'fx__';

async function measure(root) {
  const upstream = httpUpstream
    ? await spawnHttp(process.execPath, [...fixtureArgs(root), '--http', '--port', '0', '--json'])
    : undefined;
  const args = fixture
    ? method === 'tools/call'
      ? fixtureArgs(root)
      : [join(root, 'bin/toolwire.mjs'), 'serve', join(root, 'bench/resource-server.mjs')]
    : upstream
      ? [
          join(root, 'bin/toolwire.mjs'),
          'gateway',
          '--stdio',
          '--default',
          'allow',
          '--api-port',
          '0',
          '--upstream',
          `fx=${upstream.url}`,
        ]
      : gatewayArgs(root);
  const child = spawn(
    process.execPath,
    ['--trace-gc-nvp', '--import', join(here, 'protocol-fd3-preload.mjs'), ...args],
    { stdio: ['pipe', 'pipe', 'ignore', 'pipe'] },
  );
  let trace = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => (trace += chunk));
  const pending = new Map();
  let buffer = '';
  let nextId = 1;
  const protocol = child.stdio[3];
  protocol.setEncoding('utf8');
  protocol.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = line ? JSON.parse(line) : undefined;
      if (message?.id !== undefined && message.method === undefined) pending.get(message.id)?.(message);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, (message) => (pending.delete(id), resolve(message)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  // A server that fails to start says so, instead of leaving the run waiting for its answer.
  const failedToStart = new Promise((_resolve, reject) =>
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`))),
  );
  failedToStart.catch(() => undefined);
  const init = await Promise.race([request('initialize', initializeParams()), failedToStart]);
  if (!init.result) throw new Error(`initialize: ${JSON.stringify(init)}`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  // An HTTP upstream is connected in the background: wait for its tools.
  for (let i = 0; i < 100; i++) {
    const list = await request('tools/list', {});
    if (fixture || list.result?.tools?.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let failed = 0;
  const load = async (total) => {
    let sent = 0;
    const worker = async () => {
      while (sent < total) {
        const n = sent++;
        const params =
          METHOD_PARAMS[method] ??
          (n % 2
            ? { name: `${prefix}echo`, arguments: { text: `hello ${n}` } }
            : { name: `${prefix}add`, arguments: { a: n, b: 2 } });
        const response = await request(method, params);
        if (!response.result || response.result.isError) failed++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  };
  await load(10_000);
  const from = trace.length;
  const cpu = cpuMicros(child.pid);
  await load(calls);
  const cpuUsPerCall = (cpuMicros(child.pid) - cpu) / calls;
  child.stdin.end();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
  await upstream?.close();
  const gcs = trace
    .slice(from)
    .split('\n')
    .filter((line) => line.includes('pause='))
    .map((line) => Object.fromEntries([...line.matchAll(/(\w+)=([\w.]+)/g)].map((m) => [m[1], m[2]])));
  const scavenges = gcs.filter((gc) => gc.gc === 's');
  const sum = (key) => scavenges.reduce((total, gc) => total + Number(gc[key]), 0);
  const mean = (key) => sum(key) / scavenges.length;
  const pauses = sum('pause');
  return {
    failed,
    scavenges: scavenges.length,
    promotedKb: mean('promoted') / 1024,
    pauseMs: mean('pause'),
    scavengeUsPerCall: (pauses * 1000) / calls,
    full: gcs.length - scavenges.length,
    cpuUsPerCall,
  };
}

console.log(
  `${method !== 'tools/call' ? `${method} of bench/resource-server.mjs` : fixture ? 'the fixture' : httpUpstream ? 'the gateway, its upstream over HTTP' : 'the gateway'}, ${calls} calls at 16 in flight (after 10,000 to warm up)`,
);
for (const root of arg('roots', '.').split(',')) {
  const r = await measure(resolve(root));
  console.log(
    `${root}: ${r.scavenges} scavenges, ${r.promotedKb.toFixed(0)} KB promoted and ${r.pauseMs.toFixed(2)} ms each (${r.scavengeUsPerCall.toFixed(2)} µs per call); ${r.full} full collections; ${r.cpuUsPerCall.toFixed(1)} µs of CPU per call (unpinned: noisy)${r.failed ? `; ${r.failed} calls FAILED` : ''}`,
  );
}
