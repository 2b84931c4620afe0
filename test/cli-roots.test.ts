// `--root DIR`: the folders a client command offers the server (roots/list), in both eras.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, runCli } from './_cli.js';

const SERVE = ['--', process.execPath, BIN, 'serve', 'test/fixtures/terminal-server.mjs'];

describe('toolwire call --root', () => {
  for (const revision of ['2026-07-28', '2025-06-18'] as const) {
    it(`offers each folder as a file:// root named after it (${revision})`, async () => {
      const run = await runCli([
        'call',
        '--tool',
        'roots',
        '--root',
        '.',
        '--root',
        'test/fixtures',
        '--protocol-version',
        revision,
        ...SERVE,
      ]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        roots: [
          { uri: pathToFileURL(REPO).href.replace(/\/$/, ''), name: basename(REPO) },
          { uri: pathToFileURL(`${REPO}test/fixtures`).href, name: 'fixtures' },
        ],
      });
    });
  }

  it('refuses a folder that does not exist, before starting anything', async () => {
    const run = await runCli(['call', '--tool', 'roots', '--root', 'no/such/dir', ...SERVE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--root no/such/dir: no such folder');
  });

  it('without --root, says what the server wanted', async () => {
    const run = await runCli(['call', '--tool', 'roots', ...SERVE]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the server wanted the folders to work in: pass --root DIR');
  });
});
