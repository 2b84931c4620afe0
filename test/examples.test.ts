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
