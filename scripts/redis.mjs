#!/usr/bin/env node
// A real Redis for the tests. `provisionRedisServer()` finds a `redis-server` binary on PATH; when there is
// none and this is root on Debian or Ubuntu (as on CI) it runs `apt-get install redis-server` (after
// `apt-get update` when the package lists are missing); anything else fails with one line saying what to
// install. The tests' global setup (test/global-setup.ts) calls it once per run, so `npm test` on a fresh
// machine needs nothing else. `startRedisServer()` runs a throwaway server for one test file: loopback, a
// free port, a temporary directory, no persistence; `stop()` ends it and removes the directory.
// `node scripts/redis.mjs` provisions and prints the binary's path.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const INSTALL_HINT =
  'the Redis tests need redis-server on PATH: install Redis ≥ 6.2 (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** The `redis-server` on PATH (or in the usual system directories, which a minimal PATH may lack), or undefined. */
export function findRedisServer() {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter),
    ...['/usr/local/bin', '/usr/bin', '/usr/local/sbin', '/usr/sbin'],
  ];
  for (const dir of dirs) {
    if (!dir) continue;
    const file = path.join(dir, 'redis-server');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function aptGet(args, log) {
  log(`apt-get ${args.join(' ')}`);
  const run = spawnSync('apt-get', args, {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 300_000,
  });
  return {
    ok: run.status === 0,
    output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}`,
  };
}

/**
 * The path of a `redis-server` binary, installed with apt-get when there is none and this process may
 * (root, Debian or Ubuntu). Throws an Error with a one-line message otherwise.
 */
export function provisionRedisServer({ log = () => {} } = {}) {
  const found = findRedisServer();
  if (found) return found;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/etc/debian_version') || !existsSync('/usr/bin/apt-get')) {
    throw new Error(INSTALL_HINT);
  }
  const install = ['install', '-y', '--no-install-recommends', 'redis-server'];
  let result = aptGet(install, log);
  if (!result.ok) {
    // A fresh image often has no package lists, an old one stale lists: fetch them and try once more.
    log(`apt-get install failed (${lastLine(result.output)}); updating the package lists`);
    const update = aptGet(['update'], log);
    if (update.ok) result = aptGet(install, log);
  }
  const installed = findRedisServer();
  if (installed) return installed;
  throw new Error(`apt-get install redis-server failed (${lastLine(result.output)}); ${INSTALL_HINT}`);
}

function lastLine(output) {
  return output.trim().split('\n').at(-1) ?? '';
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts redis-server on `port`; resolves once it accepts connections, rejects when it exits first. */
function launch(binary, port, dir) {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const child = spawn(binary, [...args, '--daemonize', 'no', '--logfile', '', '--loglevel', 'notice'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms: ${output.trim()}`));
    }, START_TIMEOUT_MS);
    const read = (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        child.stderr.resume();
        resolve(child);
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`redis-server exited (${signal ?? `code ${code}`}): ${output.trim().split('\n').at(-1)}`),
      );
    });
  });
}

function ended(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Ends `child` with `signal`, then SIGKILL if it lingers; resolves when it has exited. */
function end(child, signal) {
  if (ended(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Starts a throwaway redis-server (binary from {@link provisionRedisServer} unless given) on a free
 * loopback port. The handle stops it (`stop`), kills it like a crash (`kill`), and starts it again on the
 * same port (`start`, empty: nothing is persisted).
 */
export async function startRedisServer(binary = provisionRedisServer()) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolwire-redis-'));
  let child;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(binary, port, dir);
    } catch (error) {
      // Someone took the port between the probe and the start: another one.
      if (attempt >= 5 || !/in use/i.test(String(error))) throw error;
    }
  }
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const handle = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid;
    },
    get running() {
      return !ended(child);
    },
    async start() {
      if (!ended(child)) return;
      child = await launch(binary, port, dir);
    },
    async kill() {
      await end(child, 'SIGKILL');
    },
    async stop() {
      await end(child, 'SIGTERM');
    },
    async close() {
      await end(child, 'SIGTERM');
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(provisionRedisServer({ log: (line) => console.error(`redis: ${line}`) }));
  } catch (error) {
    console.error(`redis: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
