// The README's getting-started server and client really run (against the built package).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('getting started', () => {
  it('the 10-line client lists and calls the 10-line server over stdio', async () => {
    const { stdout } = await run(process.execPath, ['examples/getting-started/client.mjs'], {
      timeout: 10_000,
    });
    expect(stdout).toBe('tools: greet\nHello, Ada!\n');
  });
});

describe('README', () => {
  it('shows the getting-started examples exactly as they run', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile('README.md', 'utf8');
    for (const file of ['examples/getting-started/server.mjs', 'examples/getting-started/client.mjs']) {
      expect(readme).toContain(await readFile(file, 'utf8'));
    }
  });
});
