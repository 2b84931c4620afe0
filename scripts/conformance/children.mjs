// The child processes of the conformance run (scripts/conformance.mjs): each in its own process group,
// always stopped, also on failure and Ctrl-C; and the fixture server, started until it prints its URL.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { ROOT } from './suites.mjs';

const SERVER_START_TIMEOUT_MS = 30_000;

/** Children started with their own process group, killed with it. */
export const children = new Set();

export function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

export function start(command, args, spawnOptions = {}) {
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    ...spawnOptions,
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

export function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3_000);
  await exited(child);
  clearTimeout(timer);
}

/** Starts `server` (a fixture's file) on 127.0.0.1 and a free port; resolves once it listens. */
export async function startFixture(server, logFile) {
  const log = fs.createWriteStream(logFile);
  const child = start(process.execPath, [server, '--port', '0', '--host', '127.0.0.1']);
  let stdout = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the fixture did not print its URL within ${SERVER_START_TIMEOUT_MS / 1000} s`)),
      SERVER_START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      stdout += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on('data', (chunk) => log.write(chunk));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the fixture exited (${signal ?? `code ${code}`}) before listening`));
    });
  }).catch(async (error) => {
    await stop(child);
    await new Promise((resolve) => log.end(resolve));
    const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
    throw new Error(`${error.message}\n${tail}`);
  });
  return { url, child, log };
}
