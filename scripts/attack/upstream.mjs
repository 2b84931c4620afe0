// Attacks on the gateway from behind it: `toolwire gateway --stdio` (from dist/, its own process) in front
// of a hostile upstream (fixtures/hostile-upstream.mjs over stdio, or a loopback HTTP server of this file's)
// and of a well-behaved one (bench/fixture-server.mjs). The bystander is a second caller on the gateway's
// connection calling the well-behaved upstream's `echo` throughout; what it waited past its own baseline is
// what any caller of the gateway would have waited. Each attack checks what the gateway did about the
// upstream (its listing cut, its restarts spaced, its redirect followed without a key of the gateway's, its
// endless tasks cut at maxCallMs, its silence cut at 30 s) and that the gateway stayed up, within its
// memory.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssKb } from '../../bench/load.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';
import { BIN, ROOT } from './lib/target.mjs';

const HOSTILE = path.join(ROOT, 'scripts', 'attack', 'fixtures', 'hostile-upstream.mjs');
const FIXTURE = path.join(ROOT, 'bench', 'fixture-server.mjs');
const FX = { command: process.execPath, args: [BIN, 'serve', FIXTURE], stderr: 'ignore' };

const textOf = (answer) => answer?.result?.content?.[0]?.text;
const shown = (answer) => JSON.stringify(answer)?.slice(0, 200);

/**
 * `toolwire gateway --stdio --config <file>` (upstreams `fx` and those given), initialized as a host that
 * declares elicitation and accepts every form; its RSS sampled until `close()`.
 */
async function gateway(upstreams, extra = {}) {
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
async function beside(ctx, gw, work) {
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

/** A loopback HTTP server answering `handle(message, req, res)` for each JSON-RPC POST; records requests. */
async function jsonRpcServer(handle) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ url: req.url, method: req.method, headers: req.headers });
      if (req.method !== 'POST') return res.writeHead(405).end();
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        return res.writeHead(400).end();
      }
      if (message.id === undefined) return res.writeHead(202).end();
      const answer = (result) =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'upstream-session' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      return handle(message, answer, res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

export default [
  {
    name: 'endless-cursors',
    title: 'an upstream whose tools/list pages each carry a distinct 3 MB nextCursor, for ever',
    target: false,
    budgetMs: 60_000,
    // Each page is 3 MB to read and parse, in one turn: a caller beside it waits for that.
    latencyBoundMs: 600,
    async run(ctx) {
      ctx.tries++;
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE, '--cursors', '3000000'], stderr: 'ignore' },
      });
      try {
        // The listing at start ended at the byte cap (it ran to the 100-page cap, keeping 300 MB of cursors);
        // the reconnects after 0.5 and 1 s list again beside the bystander.
        ctx.check(
          /h: down \(tools\/list returned more than 33554432 bytes of items and cursors/.test(gw.stderr()),
          () => `the gateway did not stop the listing at maxListBytes: ${gw.stderr().slice(-400)}`,
        );
        await beside(ctx, gw, () => sleep(2_000));
        ctx.check(
          gw.peakRssMb() < 256,
          () => `the gateway's RSS peaked at ${gw.peakRssMb().toFixed(0)} MB (413 before the fix)`,
        );
        ctx.note(`the gateway's RSS peaked at ${gw.peakRssMb().toFixed(0)} MB`);
      } finally {
        await gw.close();
      }
    },
  },
  {
    name: 'mute',
    title:
      'an upstream that answers nothing, not even initialize: the gateway serves within 30 s of trying it',
    target: false,
    budgetMs: 90_000,
    async run(ctx) {
      ctx.tries++;
      const started = performance.now();
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE, '--mute'], stderr: 'ignore' },
      });
      const waited = performance.now() - started;
      try {
        // 30 s for the attempt, and the gateway's start; before, 61 s (the era probe, then initialize).
        ctx.check(
          waited < 45_000,
          () => `the gateway answered initialize after ${(waited / 1000).toFixed(1)} s`,
        );
        ctx.check(
          /h: down \(connecting took longer than 30 s\)/.test(gw.stderr()),
          () => `the gateway did not say why: ${gw.stderr().slice(-300)}`,
        );
        ctx.note(`the gateway answered initialize after ${(waited / 1000).toFixed(1)} s`);
        await beside(ctx, gw, () => sleep(500));
      } finally {
        await gw.close();
      }
    },
  },
  {
    name: 'crash-loop',
    title: 'an upstream that exits 300 ms after each start: restarted after delays that double',
    target: false,
    budgetMs: 60_000,
    async run(ctx) {
      const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-attack-crash-loop-'));
      const starts = path.join(dir, 'starts');
      writeFileSync(starts, '');
      const gw = await gateway(
        {
          h: {
            command: process.execPath,
            args: [HOSTILE, '--exit-after', '300', '--starts', starts],
            stderr: 'ignore',
          },
        },
        { reconnect: { initialDelayMs: 100, maxDelayMs: 3_200 } },
      );
      const marks = () =>
        readFileSync(starts, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' '))
          .map(([what, at]) => ({ what, at: Number(at) }));
      try {
        const START_COUNT = 6;
        await beside(ctx, gw, async () => {
          while (marks().filter((m) => m.what === 'start').length < START_COUNT) await sleep(50);
        });
        // From each exit to the next start: at least the k-th delay (100 ms · 2^k); before, every one was
        // the first delay (the backoff started over at each ready), ≈0.8 s a cycle with the defaults.
        const seen = marks();
        const gaps = [];
        for (const [i, mark] of seen.entries()) {
          const next = seen[i + 1];
          if (mark.what === 'exit' && next?.what === 'start') gaps.push(next.at - mark.at);
        }
        ctx.tries += gaps.length;
        for (const [k, gap] of gaps.entries()) {
          const delay = Math.min(100 * 2 ** k, 3_200);
          ctx.check(
            gap >= delay * 0.95,
            () => `restart ${k + 1} came ${gap} ms after the exit, before its ${delay} ms delay`,
          );
        }
        ctx.note(`exit to the next start: ${gaps.join(', ')} ms`);
      } finally {
        await gw.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'redirect-headers',
    title: "an HTTP upstream answering a call with a 307 to another origin: the gateway's API key stays home",
    target: false,
    async run(ctx) {
      const elsewhere = await jsonRpcServer((message, answer) =>
        answer({ content: [{ type: 'text', text: 'answered elsewhere' }] }),
      );
      const upstream = await jsonRpcServer((message, answer, res) => {
        if (message.method === 'initialize') {
          return answer({
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'redirecting', version: '1' },
          });
        }
        if (message.method === 'tools/list') {
          return answer({ tools: [{ name: 'away', inputSchema: { type: 'object' } }] });
        }
        if (message.method === 'tools/call') return res.writeHead(307, { location: elsewhere.url }).end();
        return answer({});
      });
      const gw = await gateway({
        web: { url: upstream.url, protocolVersion: '2025-11-25', headers: { 'X-Api-Key': 'gateway-key' } },
      });
      try {
        await beside(ctx, gw, async () => {
          for (let i = 0; i < 20; i++) {
            ctx.tries++;
            const answer = await gw.call('web__away', { i });
            if (textOf(answer) !== 'answered elsewhere') ctx.fail(`the call got ${shown(answer)}`);
          }
        });
        const home = upstream.seen.filter((s) => s.headers['x-api-key'] === 'gateway-key').length;
        const leaked = elsewhere.seen.filter((s) => s.headers['x-api-key'] !== undefined).length;
        ctx.check(home > 0, 'the upstream never got the key it was configured with');
        ctx.check(
          leaked === 0,
          () =>
            `the other origin got the gateway's X-Api-Key on ${leaked} of ${elsewhere.seen.length} requests`,
        );
      } finally {
        await gw.close();
        await upstream.close();
        await elsewhere.close();
      }
    },
  },
  {
    name: 'endless-tasks',
    title: 'plain calls of a tool that requires a task upstream, whose tasks never end (poll again at once)',
    target: false,
    async run(ctx) {
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE], stderr: 'ignore', timeoutMs: 500, maxCallMs: 1_500 },
      });
      const CALLS = 10;
      try {
        await beside(ctx, gw, async () => {
          // Answered at maxCallMs each, their tasks cancelled; before, never answered (20 polls a second each).
          const answers = await Promise.all(
            Array.from({ length: CALLS }, () => gw.call('h__endless_task', {}, 10_000)),
          );
          for (const answer of answers) {
            ctx.tries++;
            ctx.check(
              answer?.result?.isError === true &&
                /exceeded its maximum total timeout of 1500 ms$/.test(textOf(answer) ?? ''),
              () => `expected an isError result at maxCallMs, got ${shown(answer)}`,
            );
          }
        });
        const counts = JSON.parse(textOf(await gw.call('h__tasks')) ?? '{}');
        ctx.check(counts.cancels === CALLS, () => `${counts.cancels} of ${CALLS} tasks were cancelled`);
        ctx.note(`the upstream was polled ${counts.gets} times for ${CALLS} calls of 1.5 s`);
      } catch (error) {
        ctx.fail(`the calls were not answered: ${error.message}`);
      } finally {
        await gw.close();
      }
    },
  },
  {
    name: 'floods',
    title:
      'during calls: 10,000 list_changed, 3,000 elicitations at once, 100,000 cancels of ids never sent, 30,000 progress, a call never answered',
    target: false,
    budgetMs: 90_000,
    // 30,000 progress notifications relayed in one burst: the gateway relays each (100,000 held a caller
    // beside them 300–650 ms here, mostly collecting garbage); the usual +100 ms bound cannot hold for that.
    latencyBoundMs: 600,
    async run(ctx) {
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE], stderr: 'ignore', timeoutMs: 2_000 },
      });
      const expect = async (name, args, check) => {
        ctx.tries++;
        const answer = await gw.call(name, args);
        const problem = check(answer);
        if (problem) ctx.fail(`${name} ${JSON.stringify(args)}: ${problem}: ${shown(answer)}`);
        return answer;
      };
      const is = (text) => (answer) => (textOf(answer) === text ? undefined : `expected "${text}"`);
      try {
        await beside(ctx, gw, async () => {
          await expect('h__list_changed', { n: 10_000 }, is('after the list_changed'));
          // Coalesced: the list fetched again once or twice, not once a notification.
          await expect('h__lists', {}, (answer) =>
            Number(textOf(answer)) <= 4 ? undefined : 'the tools were listed again once a notification',
          );
          await expect('h__ask', { n: 3_000 }, (answer) => {
            const { accepted, refused } = JSON.parse(textOf(answer) ?? '{}');
            return accepted + refused === 3_000 && accepted >= 1 ? undefined : 'not every question answered';
          });
          await expect('h__cancels', { n: 100_000 }, is('after the cancels'));
          await expect('h__progress', { n: 30_000 }, is('after the progress'));
          await expect('h__silent', {}, (answer) =>
            answer?.result?.isError === true && /timed out after 2\d\d\d ms/.test(textOf(answer) ?? '')
              ? undefined
              : 'expected an isError result saying it timed out',
          );
        });
        const relayed = gw.peer.messages.filter((m) => m.method === 'elicitation/create').length;
        ctx.note(
          `the host was asked ${relayed} of the 3,000 questions (the rest refused by the in-flight cap)`,
        );
      } finally {
        await gw.close();
      }
    },
  },
];
