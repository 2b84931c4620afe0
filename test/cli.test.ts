// The `toolwire` command, run for real: `node bin/toolwire.mjs ...` (which imports dist/cli.js; build first).
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
const FIXTURE = 'test/fixtures/protocol-server.mjs';
const SERVE_FIXTURE = ['--', process.execPath, BIN, 'serve', FIXTURE];
const FIXTURE_TOOLS = ['echo', 'add', 'structured_only', 'throws', 'all_content', 'slow', 'meta'];
const DEMO_TOOLS = ['list_files', 'read_file', 'search_files', 'write_file', 'workspace_info'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolwire-cli-')));
  await writeFile(join(workspace, 'notes.txt'), 'first\nthe needle line\n');
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe('toolwire (help and usage)', () => {
  it('prints help with the exit codes', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/toolwire serve \[MODULE\]/);
    expect(top.stdout).toMatch(/Exit codes:[\s\S]*4 {2}connection failure/);
    for (const command of ['serve', 'tools', 'call']) {
      const help = await run([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: toolwire ${command}`);
    }
  });

  it('exits 2 for an unknown command, no command, or a missing "--"', async () => {
    expect((await run(['frobnicate'])).code).toBe(ExitCode.Usage);
    expect((await run([])).code).toBe(ExitCode.Usage);
    const noTarget = await run(['tools']);
    expect(noTarget.code).toBe(ExitCode.Usage);
    expect(noTarget.stderr).toMatch(/missing "-- <command\.\.\.>"/);
  });
});

describe('toolwire tools', () => {
  it('lists the tools of a served module', async () => {
    const result = await run(['tools', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^protocol-fixture 1\.0\.0 \(protocol [\d-]+\): 15 tools/);
    for (const name of FIXTURE_TOOLS) expect(result.stdout).toMatch(new RegExp(`^${name}\\b`, 'm'));
    expect(result.stdout).toContain('echo — Echo');
    expect(result.stdout).toContain('hints:  read-only');
    expect(result.stdout).toContain('input:  text: string (required)');
    expect(result.stdout).toContain('output: sum: number (required)');
    expect(result.stdout).toContain('input:  steps?: integer, ms?: integer');
  });

  it('prints the raw tools array with --json', async () => {
    const result = await run(['tools', '--json', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as Array<{ name: string; inputSchema: unknown }>;
    expect(tools).toHaveLength(15); // every page (the fixture pages by 3)
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(FIXTURE_TOOLS));
    expect(tools[0]).toMatchObject({ name: 'echo', title: 'Echo', inputSchema: { type: 'object' } });
  });

  it('serves the demo, rooted at the cwd or $TOOLWIRE_DEMO_ROOT', async () => {
    const fromCwd = await run(['tools', '--', process.execPath, BIN, 'serve'], { cwd: workspace });
    expect(fromCwd.code).toBe(0);
    expect(fromCwd.stdout).toMatch(/^toolwire-demo /);
    for (const name of DEMO_TOOLS) expect(fromCwd.stdout).toMatch(new RegExp(`^${name} — `, 'm'));
    expect(fromCwd.stdout).toContain('hints:  not read-only, destructive, idempotent, closed-world');

    const fromEnv = await run(
      ['call', '--tool', 'search_files', 'pattern=needle', '--', process.execPath, BIN, 'serve'],
      {
        env: { TOOLWIRE_DEMO_ROOT: workspace },
      },
    );
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toContain('"path": "notes.txt"');
    expect(fromEnv.stdout).toContain('"line": 2');
  });
});

describe('toolwire call', () => {
  it('prints a text result and exits 0', async () => {
    const result = await run(['call', '--tool', 'echo', '--args', '{"text":"hi"}', ...SERVE_FIXTURE]);
    expect(result).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('takes key=value arguments, parsing JSON values', async () => {
    const result = await run(['call', '--tool', 'add', 'a=2', 'b=40', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ sum: 42 });
    const text = await run(['call', '--tool', 'echo', 'text=42 apples', ...SERVE_FIXTURE]);
    expect(text.stdout).toBe('42 apples\n');
  });

  it('summarizes images, audio, links and embedded resources', async () => {
    const result = await run(['call', '--tool', 'all_content', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'hello',
        '[image image/png, 70 bytes]',
        '[audio audio/wav, 4 bytes]',
        '[link a.txt file:///a.txt]',
        '[resource file:///b.txt text/plain, 3 chars]',
        '  bee',
        '',
      ].join('\n'),
    );
  });

  it('prints the raw result with --json', async () => {
    const result = await run(['call', '--tool', 'echo', '--json', 'text=raw', ...SERVE_FIXTURE]);
    expect(JSON.parse(result.stdout)).toEqual({ content: [{ type: 'text', text: 'raw' }] });
  });

  it('exits 1 for a tool error', async () => {
    const result = await run(['call', '--tool', 'throws', ...SERVE_FIXTURE]);
    expect(result.code).toBe(ExitCode.ToolError);
    expect(result.stdout).toContain('kaboom');
    expect(result.stderr).toContain('returned an error');
  });

  it('exits 3 for a JSON-RPC error (unknown tool)', async () => {
    const result = await run(['call', '--tool', 'nope', ...SERVE_FIXTURE]);
    expect(result.code).toBe(ExitCode.Protocol);
    expect(result.stderr).toMatch(/-32602.*Unknown tool: nope/);
  });

  it('exits 4 when the server command does not exist, exits, or times out', async () => {
    const missing = await run(['call', '--tool', 'echo', '--', 'definitely-not-a-command-toolwire']);
    expect(missing.code).toBe(ExitCode.Connection);
    expect(missing.stderr).toMatch(/could not connect.*ENOENT/);

    const exits = await run(['tools', '--', process.execPath, '-e', 'console.error("bye"); process.exit(3)']);
    expect(exits.code).toBe(ExitCode.Connection);
    expect(exits.stderr).toMatch(/exit code 3/);
    expect(exits.stderr).toMatch(/server stderr:\n {2}bye/);

    const slow = await run([
      'call',
      '--tool',
      'slow',
      '--timeout',
      '100',
      'steps=5',
      'ms=200',
      ...SERVE_FIXTURE,
    ]);
    expect(slow.code).toBe(ExitCode.Connection);
    expect(slow.stderr).toMatch(/timed out/);
  });

  it('exits 2 for bad --args or arguments', async () => {
    const bad = await run(['call', '--tool', 'echo', '--args', '{text:', ...SERVE_FIXTURE]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toMatch(/--args is not valid JSON/);
    const array = await run(['call', '--tool', 'echo', '--args', '[1]', ...SERVE_FIXTURE]);
    expect(array.code).toBe(ExitCode.Usage);
    expect(array.stderr).toMatch(/must be a JSON object/);
    expect((await run(['call', '--tool', 'echo', 'oops', ...SERVE_FIXTURE])).code).toBe(ExitCode.Usage);
    expect((await run(['call', ...SERVE_FIXTURE])).code).toBe(ExitCode.Usage);
    expect((await run(['call', '--tool', 'echo', '--timeout', 'soon', ...SERVE_FIXTURE])).code).toBe(
      ExitCode.Usage,
    );
  });
});

describe('toolwire serve', () => {
  it('exits 0 when stdin closes, with nothing but MCP on stdout', async () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const result = await run(['serve', FIXTURE], { stdin: `${JSON.stringify(request)}\n` });
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(result.stderr).toMatch(
      /^toolwire: serving protocol-fixture 1\.0\.0 over stdio \(try: toolwire tools -- /,
    );
  });

  it('exits 2 with a clear message for a bad module', async () => {
    const missing = await run(['serve', 'test/fixtures/no-such-server.mjs']);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/cannot serve test\/fixtures\/no-such-server\.mjs: no such file/);

    await writeFile(join(workspace, 'no-default.mjs'), 'export const x = 1;\n');
    await writeFile(join(workspace, 'not-server.mjs'), 'export default () => ({ hello: 1 });\n');
    const noDefault = await run(['serve', 'no-default.mjs'], { cwd: workspace });
    expect(noDefault.code).toBe(ExitCode.Usage);
    expect(noDefault.stderr).toMatch(/has no default export/);
    const notServer = await run(['serve', 'not-server.mjs'], { cwd: workspace });
    expect(notServer.code).toBe(ExitCode.Usage);
    expect(notServer.stderr).toMatch(/returned an object \(Object\), not a toolwire Server/);
  });
});
