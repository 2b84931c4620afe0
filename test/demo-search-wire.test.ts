// The demo's search_files over HTTP (`toolwire serve --http`, a real process, two sessions): a caller's
// catastrophic regular expression answers at once, and a long search leaves other sessions served.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../src/cli/demo/sandbox.js';
import { searchFiles } from '../src/cli/demo/search-files.js';
import { Client } from '../src/client/index.js';
import type { CallToolResult } from '../src/protocol/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { BIN } from './_cli.js';

/** 28 bytes on which a backtracking `/^(a+)+$/` took 9.4 s. */
const CATASTROPHIC = `${'a'.repeat(27)}!`;
const BIG_FILES = 64;
const BIG_LINE = `${'a'.repeat(256 * 1024)}!`;

let root: string;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'toolwire-search-')));
  await mkdir(join(root, 'small'));
  await mkdir(join(root, 'lines'));
  await writeFile(join(root, 'lines', 'many.txt'), 'line of hay\n'.repeat(50_000));
  await writeFile(join(root, 'small', 'small.txt'), `${CATASTROPHIC}\n`);
  for (let i = 0; i < BIG_FILES; i++)
    await writeFile(join(root, `big-${String(i).padStart(2, '0')}.txt`), BIG_LINE);
  child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0'], {
    env: { ...process.env, TOOLWIRE_DEMO_ROOT: root },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 2000); // a server stuck in a regular expression
    await exited;
    clearTimeout(kill);
  }
  if (root) await rm(root, { recursive: true, force: true });
});

async function session(): Promise<Client> {
  const client = new Client({ name: 'search-wire', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url }));
  return client;
}

const structured = (result: CallToolResult) =>
  result.structuredContent as { matches: { path: string }[]; filesScanned: number; truncated: boolean };

describe('search_files over HTTP', () => {
  it('answers a catastrophic regular expression at once', async () => {
    const client = await session();
    try {
      const started = performance.now();
      const result = await client.callTool('search_files', { pattern: '/^(a+)+$/', path: 'small' });
      expect(structured(result)).toEqual({ matches: [], filesScanned: 1, truncated: false });
      const anchored = await client.callTool('search_files', { pattern: '/^(a+)+!$/i', path: 'small' });
      expect(structured(anchored).matches).toEqual([
        { path: 'small/small.txt', line: 1, text: CATASTROPHIC },
      ]);
      // ≈0.5 s at load average 15 (mostly loading re2js); the backtracking engine took 9.4 s on this file.
      expect(performance.now() - started).toBeLessThan(3000);
      const refused = await client.callTool('search_files', { pattern: '/(a)\\1/', path: 'small' });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^Invalid regular expression \/\(a\)\\1\/: /) },
      ]);
    } finally {
      await client.close();
    }
  });

  it("serves another session's call while a long search runs, and the search stops when cancelled", async () => {
    const searching = await session();
    const other = await session();
    try {
      const order: string[] = [];
      const controller = new AbortController();
      let started!: () => void;
      const firstProgress = new Promise<void>((resolve) => (started = resolve));
      const search = searching
        .callTool(
          'search_files',
          { pattern: '/^(a+)+$/' },
          { signal: controller.signal, onProgress: () => started() },
        )
        .then(
          () => order.push('search finished'),
          (error: unknown) => order.push(`search ${(error as { code?: string }).code ?? 'failed'}`),
        );
      await firstProgress; // the search is under way: one file scanned, 16 MiB to go
      const read = await other.callTool('read_file', { path: 'small/small.txt' });
      order.push('other session answered');
      expect(read.content).toEqual([{ type: 'text', text: `${CATASTROPHIC}\n` }]);
      controller.abort();
      await search;
      expect(order).toEqual(['other session answered', 'search REQUEST_CANCELLED']);
    } finally {
      await searching.close();
      await other.close();
    }
  });

  it('stops inside a file once cancelled: it yields every 64 KiB of text', async () => {
    const sandbox = new Sandbox(root);
    const controller = new AbortController();
    let lines = 0;
    const outcome = await searchFiles(
      sandbox,
      join(root, 'lines'),
      (line) => {
        lines++;
        controller.abort(); // as a notifications/cancelled would, between two turns
        return line === '';
      },
      { signal: controller.signal },
    );
    expect(outcome).toMatchObject({ cancelled: true, scanned: 0, total: 1 });
    expect(lines).toBeGreaterThan(1000);
    expect(lines).toBeLessThan(10_000); // of 50,000: the search stopped at the first turn after the abort
  });
});
