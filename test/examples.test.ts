// The README's examples really run, as a user runs them: real processes, from a working directory that is
// not the repository (each example finds its files from its own URL), over stdio and over HTTP.
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const example = (file: string) => path.join(ROOT, 'examples', file);

/** Starts `server.mjs` on a free port; resolves with its URL (its first line on stdout) and a disposer. */
async function httpServer(): Promise<{ url: string } & AsyncDisposable> {
  const child = spawn(process.execPath, [example('http-client/server.mjs'), '0'], {
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const lines = createInterface({ input: child.stdout });
    const url = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) =>
        reject(new Error(`the HTTP example server exited (${code}) before its URL`)),
      );
    });
    return { url, [Symbol.asyncDispose]: dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

describe('getting started', () => {
  it('the client lists and calls the server over stdio, from any working directory', async () => {
    const { stdout } = await run(process.execPath, [example('getting-started/client.mjs')], {
      cwd: tmpdir(),
      timeout: 10_000,
    });
    expect(stdout).toBe('tools: greet\nHello, Ada!\n');
  });
});

describe('a client over HTTP', () => {
  it('lists and calls the HTTP example server with StreamableHttpClientTransport', async () => {
    await using server = await httpServer();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { stdout } = await run(process.execPath, [example('http-client/client.mjs'), server.url], {
      cwd: tmpdir(),
      timeout: 10_000,
    });
    expect(stdout).toBe('tools: greet\nHello, Ada!\n');
  });
});

describe('README', () => {
  it('shows the examples exactly as they run', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    for (const file of [
      'getting-started/server.mjs',
      'getting-started/client.mjs',
      'http-client/server.mjs',
      'http-client/client.mjs',
    ]) {
      expect(readme, `README.md shows examples/${file}`).toContain(await readFile(example(file), 'utf8'));
    }
  });
});
