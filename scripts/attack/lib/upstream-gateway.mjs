// The gateway the upstream attacks (scripts/attack/upstream/) run: `toolwire gateway --stdio` (from dist/, its
// own process) in front of the upstreams an attack gives and of a well-behaved one (`fx`,
// bench/fixture-server.mjs), and the bystander that calls `fx__echo` beside each attack's work.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssKb } from '../../../bench/load.mjs';
import { StdioPeer } from './stdio-peer.mjs';
import { BIN, ROOT } from './target.mjs';

export const HOSTILE = path.join(ROOT, 'scripts', 'attack', 'fixtures', 'hostile-upstream.mjs');
const FIXTURE = path.join(ROOT, 'bench', 'fixture-server.mjs');
const FX = { command: process.execPath, args: [BIN, 'serve', FIXTURE], stderr: 'ignore' };

export const textOf = (answer) => answer?.result?.content?.[0]?.text;
export const shown = (answer) => JSON.stringify(answer)?.slice(0, 200);

/**
 * `toolwire gateway --stdio --config <file>` (upstreams `fx` and those given), initialized as a host that
 * declares elicitation and accepts every form; its RSS sampled until `close()`.
 */
export async function gateway(upstreams, extra = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-attack-upstream-'));
  const config = path.join(dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({ upstreams: { fx: FX, ...upstreams }, policy: { default: 'allow' }, ...extra }),
  );
  const child = spawn(process.execPath, [BIN, 'gateway', '--stdio', '--config', config, '--api-port', '0'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  child.stdin.on('error', () => {});
  const peer = new StdioPeer(child, {
    // Notifications are only counted: a flood of them is not kept.
    keep: (message) => (message.method?.startsWith('notifications/') ? { method: message.method } : message),
    onMessage: (message) => {
      if (message.method === 'elicitation/create' && message.id !== undefined) {
        void peer.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { action: 'accept', content: {} } })}\n`,
        );
      }
    },
  });
  let peakRssMb = 0;
  const sample = setInterval(() => {
    try {
      peakRssMb = Math.max(peakRssMb, rssKb(child.pid) / 1024);
    } catch {
      // gone: the checks say so
    }
  }, 25);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exit;
  void exited.then((how) => (exit = how));
  const response = await peer.request(
    'initialize',
    {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'toolwire-attack', version: '1.0.0' },
    },
    60_000,
  );
  if (!response.result) throw new Error(`initialize failed: ${shown(response)}`);
  await peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    peer,
    /** The gateway's lines about its upstreams (not those that print its API token). */
    stderr: () =>
      stderr
        .split('\n')
        .filter((line) => /upstream|\b(fx|h|web): /.test(line) && !/token/i.test(line))
        .join('\n'),
    peakRssMb: () => peakRssMb,
    alive: () => exit === undefined,
    call: (name, args = {}, timeoutMs = 30_000) =>
      peer.request('tools/call', { name, arguments: args, _meta: { progressToken: peer.id() } }, timeoutMs),
    async close() {
      clearInterval(sample);
      child.stdin.end();
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `work` while the bystander calls `fx__echo` (10 ms apart); reports in `ctx` the worst wait past the
 * baseline median and the gateway's peak RSS, and fails a wrong echo or a gateway that died.
 */
export async function beside(ctx, gw, work) {
  const echo = async () => {
    const started = performance.now();
    const answer = await gw.call('fx__echo', { text: 'hi' });
    if (textOf(answer) !== 'hi') ctx.fail(`the bystander got ${shown(answer)}`);
    return performance.now() - started;
  };
  const baseline = [];
  for (let i = 0; i < 30; i++) baseline.push(await echo());
  baseline.sort((a, b) => a - b);
  const usual = baseline[15];
  let done = false;
  let worst = 0;
  const running = Promise.resolve()
    .then(work)
    .finally(() => (done = true));
  running.catch(() => {}); // awaited below, once the bystander stops: not unhandled meanwhile
  while (!done) {
    worst = Math.max(worst, (await echo()) - usual);
    await sleep(10);
  }
  await running;
  ctx.delayMs = Math.max(ctx.delayMs ?? 0, worst);
  ctx.peakRssMb = gw.peakRssMb();
  ctx.check(gw.alive(), () => `the gateway exited: ${gw.stderr().slice(-300)}`);
}
