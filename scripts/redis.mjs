#!/usr/bin/env node
// A real Redis for the tests. `provisionRedisServer()` finds a `redis-server` binary on PATH; when there is
// none and this is root on Debian or Ubuntu (as on CI) it runs `apt-get install redis-server` (after
// `apt-get update` when the package lists are missing); anything else fails with one line saying what to
// install (scripts/system-package.mjs, shared with scripts/chromium.mjs). The tests' global setup
// (test/global-setup.ts) calls it once per run, so `npm test` on a fresh machine needs nothing else. `startRedisServer()` runs a throwaway server for one test file: loopback, a
// free port, a temporary directory, no persistence; `stop()` ends it and removes the directory.
// `node scripts/redis.mjs` provisions and prints the binary's path.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProgram, provisionProgram } from './system-package.mjs';

const INSTALL_HINT =
  'the Redis tests need redis-server on PATH: install Redis ≥ 6.2 (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** The `redis-server` on PATH (or in the usual system directories, which a minimal PATH may lack), or undefined. */
export function findRedisServer() {
  return findProgram(['redis-server']);
}

/**
 * The path of a `redis-server` binary, installed with apt-get when there is none and this process may
 * (root, Debian or Ubuntu). Throws an Error with a one-line message otherwise.
 */
export function provisionRedisServer({ log = () => {} } = {}) {
  return provisionProgram({ find: findRedisServer, pkg: 'redis-server', hint: INSTALL_HINT, log });
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
