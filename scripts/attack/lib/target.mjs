// The server under attack, as a child process of the built package: `node --expose-gc bin/toolwire.mjs serve
// <fixture> [--http --port 0 …]`, with what an attack needs to judge it: whether it is still alive (and how
// it ended), the tail of its stderr, its RSS, and for stdio a raw line peer on its pipes.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rssKb } from '../../../bench/load.mjs';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'toolwire.mjs');
export const TARGET = path.join(ROOT, 'scripts', 'attack', 'fixtures', 'target-server.mjs');

/** The environment of every spawned server: PATH and HOME, no host extras (NODE_OPTIONS and the like). */
function childEnv(extra) {
  const { PATH, HOME, SYSTEMROOT } = process.env;
  return Object.fromEntries(
    Object.entries({ PATH, HOME, SYSTEMROOT, ...extra }).filter(([, value]) => value !== undefined),
  );
}

/**
 * Starts the target. `transport: 'stdio'` also serves the same Server over HTTP on a side port (the
 * bystander's way in); `'http'` passes `flags` (`--stateless`, `--json`, auth options) to serve --http.
 */
export async function startTarget({ transport = 'http', flags = [], env = {}, fixture = TARGET } = {}) {
  const stdio = transport === 'stdio';
  const args = ['--expose-gc', BIN, 'serve', fixture, ...(stdio ? [] : ['--http', '--port', '0', ...flags])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv({ ...env, ...(stdio ? { TOOLWIRE_ATTACK_SIDE_HTTP: '1' } : {}) }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let exit;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve((exit = { code, signal }))),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  child.stdin.on('error', () => {}); // a server that stopped reading: the attack notices otherwise
  const urlFrom = (stream, pattern) =>
    new Promise((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`no URL from the target: ${stderr.trim()}`)), 20_000);
      const onData = (chunk) => {
        seen += chunk;
        const match = pattern.exec(seen);
        if (!match) return;
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(match[1]);
      };
      stream.on('data', onData);
      void exited.then(() => reject(new Error(`the target exited before serving: ${stderr.trim()}`)));
    });
  let url;
  if (stdio) url = await urlFrom(child.stderr, /side-http (\S+)\n/);
  else {
    child.stdout.setEncoding('utf8');
    url = await urlFrom(child.stdout, /^(\S+)\n/);
    child.stdout.resume();
  }
  return {
    transport,
    child,
    pid: child.pid,
    /** The MCP endpoint (for stdio: the side port the bystander uses). */
    url,
    exited,
    get exit() {
      return exit;
    },
    alive: () => exit === undefined,
    stderr: () => stderr,
    rssMb: () => (exit === undefined ? rssKb(child.pid) / 1024 : Number.NaN),
    /**
     * Ends the server as a client or an operator would: stdio closes stdin (then SIGTERM after 2 s), HTTP
     * gets SIGTERM. A server may drain its work first (toolwire's grace is 10 s); SIGKILL after 15 s.
     * Resolves how it ended.
     */
    async close() {
      if (exit) return exit;
      if (stdio) child.stdin.end();
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGTERM'), 2000);
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const ended = await exited;
      clearTimeout(timer);
      clearTimeout(kill);
      return ended;
    },
  };
}

/** The RSS of `target` sampled every `everyMs` until `stop()`, which returns the peak in MB. */
export function watchRss(target, everyMs = 25) {
  let peak = target.rssMb();
  const timer = setInterval(() => {
    const rss = target.rssMb();
    if (rss > peak) peak = rss;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = target.rssMb();
      return Number.isNaN(rss) ? peak : Math.max(peak, rss);
    },
  };
}
