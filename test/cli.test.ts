// The `toolwire` command, run for real: `node bin/toolwire.mjs ...` (which imports dist/cli.js; the global
// setup builds it from src/).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { BIN, FIXTURE, SERVE_FIXTURE, failureObject, runCli as run } from './_cli.js';

const FIXTURE_TOOLS = ['echo', 'add', 'structured_only', 'throws', 'all_content', 'slow', 'meta'];
const DEMO_TOOLS = ['list_files', 'read_file', 'search_files', 'write_file', 'workspace_info'];

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
    for (const command of ['serve', 'tools', 'call', 'resources', 'read', 'prompts', 'prompt']) {
      expect(top.stdout).toContain(`toolwire ${command} `);
      const help = await run([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: toolwire ${command}`);
      // Examples and hints are commands that work in a clone: npx finds the package's own bin there.
      expect(help.stdout).toMatch(/^ {2}npx toolwire /m);
      expect(help.stdout).not.toMatch(/^ {2}toolwire /m);
      const viaHelp = await run(['help', command]);
      expect(viaHelp.stdout).toBe(help.stdout);
    }
    expect((await run(['tools', '--help'])).stdout).toContain('--protocol-version REV');
  });

  it('exits 2 for an unknown command, no command, or a missing "--", with a hint that works in a clone', async () => {
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(ExitCode.Usage);
    expect(unknown.stderr).toContain('See: npx toolwire --help');
    expect((await run([])).code).toBe(ExitCode.Usage);
    const noTarget = await run(['tools']);
    expect(noTarget.code).toBe(ExitCode.Usage);
    expect(noTarget.stderr).toMatch(/missing "-- <command\.\.\.>"/);
    expect(noTarget.stderr).toContain('See: npx toolwire tools --help');
  });
  it('says in one line that dist/ is not built, in a clone that never built it', async () => {
    const clone = await mkdtemp(join(tmpdir(), 'toolwire-unbuilt-'));
    try {
      await mkdir(join(clone, 'bin'));
      await copyFile(BIN, join(clone, 'bin', 'toolwire.mjs'));
      const unbuilt = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
        execFile(process.execPath, [join(clone, 'bin', 'toolwire.mjs'), '--version'], (error, _out, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, stderr }),
        ),
      );
      expect(unbuilt).toEqual({
        code: ExitCode.Connection,
        stderr: 'toolwire: dist/ is not built here: run `npm run build` (npm install builds it too)\n',
      });
    } finally {
      await rm(clone, { recursive: true, force: true });
    }
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
  it("prints a progress notification's count once when its message states it (the demo's search_files)", async () => {
    const searched = await run(
      [
        'call',
        '--tool',
        'search_files',
        'pattern=needle',
        '--progress',
        '--',
        process.execPath,
        BIN,
        'serve',
      ],
      { env: { TOOLWIRE_DEMO_ROOT: workspace } },
    );
    expect(searched.code).toBe(0);
    // The server's message is "1/1 files scanned": the counter before it said the same.
    expect(searched.stderr).toContain('progress: 1/1 files scanned\n');
    expect(searched.stderr).not.toMatch(/progress: 1\/1 1\/1/);
  });

  it('says which page a -32042 asks the user to open, and to run the call again after', async () => {
    const server = ['--', process.execPath, 'test/fixtures/sdk-url-elicitation-server.mjs'];
    const human = await run(['call', '--tool', 'needs_connect', ...server]);
    expect(human.code).toBe(ExitCode.Protocol);
    // (The SDK's message says "MCP error -32042: …" on the wire.)
    expect(human.stderr).toMatch(
      /^toolwire: the server needs you to open this page first, then to run the call again: .*Connect your account first\n {2}https:\/\/accounts\.example\.com\/connect\?elicitation=sdk-connect-1 {2}\(Connect your Example account\)\n$/,
    );
    const json = await run(['call', '--json', '--tool', 'needs_connect', ...server]);
    expect(failureObject(json)).toMatchObject({
      code: 'URL_ELICITATION_REQUIRED',
      details: { jsonrpcCode: -32042, data: { elicitations: [{ elicitationId: 'sdk-connect-1' }] } },
    });
  });

  it('prints a text result and exits 0', async () => {
    const result = await run(['call', '--tool', 'echo', '--args', '{"text":"hi"}', ...SERVE_FIXTURE]);
    expect(result).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('types key=value arguments as the input schema says: numbers for number, strings for string', async () => {
    const result = await run(['call', '--tool', 'add', 'a=2', 'b=40', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ sum: 42 });
    const text = await run(['call', '--tool', 'echo', 'text=42 apples', ...SERVE_FIXTURE]);
    expect(text.stdout).toBe('42 apples\n');
    // `text` is a string property: 5, true and null stay the strings as written (they parse as JSON).
    for (const value of ['5', 'true', 'null', '[1]']) {
      const typed = await run(['call', '--tool', 'echo', '--json', `text=${value}`, ...SERVE_FIXTURE]);
      expect(typed.code, value).toBe(0);
      expect(JSON.parse(typed.stdout), value).toEqual({ content: [{ type: 'text', text: value }] });
    }
  });

  it('exits 2, running nothing, for arguments that do not match the input schema', async () => {
    const wrongType = await run(['call', '--tool', 'add', 'a=two', 'b=1', ...SERVE_FIXTURE]);
    expect(wrongType.code).toBe(ExitCode.Usage);
    expect(wrongType.stdout).toBe('');
    expect(wrongType.stderr).toContain(
      'the arguments do not match the input schema of tool add: /a must be number',
    );
    expect(wrongType.stderr).toContain('add takes: a: number (required), b: number (required)');
    expect(wrongType.stderr).toContain('Nothing was run.');
    const missing = await run(['call', '--tool', 'echo', '--json', ...SERVE_FIXTURE]);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(failureObject(missing)).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { tool: 'echo', issues: [{ path: '', message: "must have required property 'text'" }] },
    });
  });

  it('exits 2, running nothing, for a number JSON cannot carry (1e400, beyond 2^53), naming the argument', async () => {
    const infinite = await run(['call', '--tool', 'add', '--json', 'a=1e400', 'b=1', ...SERVE_FIXTURE]);
    expect(infinite.code).toBe(ExitCode.Usage); // it was sent as null: the server refused it, exit 1
    expect(infinite.stderr).toMatch(/^toolwire: a=1e400: a number too large to be finite/);
    expect(failureObject(infinite).code).toBe('INVALID_ARGUMENTS');
    const inArgs = await run(['call', '--tool', 'add', '--args', '{"a":-1e400,"b":1}', ...SERVE_FIXTURE]);
    expect(inArgs.code).toBe(ExitCode.Usage);
    expect(inArgs.stderr).toMatch(/^toolwire: --args: a number too large to be finite/);
    const big = await run(['call', '--tool', 'add', 'a=12345678901234567890', 'b=1', ...SERVE_FIXTURE]);
    expect(big.code).toBe(ExitCode.Usage);
    expect(big.stderr).toMatch(
      /^toolwire: a=12345678901234567890: 12345678901234567890, an integer beyond 2\^53 - 1 \(it would be sent as 12345678901234567000\)/,
    );
    expect(big.stderr).toContain('Nothing was run.');
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

  it('exits 2 for an unknown tool, naming the tools and how to list them', async () => {
    const result = await run(['call', '--tool', 'nope', ...SERVE_FIXTURE]);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toMatch(
      /^toolwire: the server has no tool "nope" \(it answered: Unknown tool: nope\)$/m,
    );
    expect(result.stderr).toMatch(/^Its tools: echo, add, structured_only, /m);
    expect(result.stderr).toContain(`See: npx toolwire tools -- ${process.execPath} ${BIN} serve ${FIXTURE}`);
  });

  it('exits 4 when the server command does not exist, exits, or times out', async () => {
    const missing = await run(['call', '--tool', 'echo', '--', 'definitely-not-a-command-toolwire']);
    expect(missing.code).toBe(ExitCode.Connection);
    expect(missing.stderr).toMatch(/could not connect.*ENOENT/);

    const exits = await run(['tools', '--', process.execPath, '-e', 'console.error("bye"); process.exit(3)']);
    expect(exits.code).toBe(ExitCode.Connection);
    expect(exits.stderr).toMatch(/exited \(exit code 3\) before answering the MCP handshake/);
    expect(exits.stderr).toMatch(/server stderr \(last lines\):\n {2}bye/);

    // --max-time bounds a call however much progress it reports: a 20 s call, progress every 500 ms, cut at 3 s.
    const slow = await run([
      'call',
      '--tool',
      'slow',
      '--timeout',
      '1000',
      '--max-time',
      '3000',
      'steps=40',
      'ms=500',
      ...SERVE_FIXTURE,
    ]);
    expect(slow.code).toBe(ExitCode.Connection);
    expect(slow.stderr).toMatch(
      /timed out: Request tools\/call exceeded its maximum total timeout of 3000 ms/,
    );
    expect(slow.ms).toBeLessThan(12_000);

    // --timeout bounds a call silent that long: its first progress would come after 3 s.
    const silent = await run([
      'call',
      '--tool',
      'slow',
      '--timeout',
      '1000',
      'steps=1',
      'ms=3000',
      ...SERVE_FIXTURE,
    ]);
    expect(silent.code).toBe(ExitCode.Connection);
    expect(silent.stderr).toMatch(/timed out: Request tools\/call timed out after \d+ ms/);
  });

  it('lets a call that reports progress run past --timeout: each notification renews it', async () => {
    // 8 steps of 300 ms (2.4 s), each followed by a progress notification, under --timeout 1500.
    const args = ['call', '--tool', 'slow', '--timeout', '1500', 'steps=8', 'ms=300', ...SERVE_FIXTURE];
    const result = await run(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('done after 8\n');
  });

  it('pins a protocol revision with --protocol-version, and refuses one it does not know (exit 2)', async () => {
    for (const revision of ['2024-11-05', '2025-06-18', '2026-07-28']) {
      const pinned = await run(['tools', '--protocol-version', revision, ...SERVE_FIXTURE]);
      expect(pinned.code, revision).toBe(0);
      expect(pinned.stdout).toMatch(
        new RegExp(`^protocol-fixture 1\\.0\\.0 \\(protocol ${revision}\\): 15 tools`),
      );
    }
    const unknown = await run(['tools', '--protocol-version', '2025-01-01', ...SERVE_FIXTURE]);
    expect(unknown.code).toBe(ExitCode.Usage);
    expect(unknown.stderr).toContain(
      'unknown protocol version "2025-01-01" (known: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)',
    );
  });

  it('with no terminal, runs nothing and says no one could be asked (exit 5)', async () => {
    const args = [
      'call',
      '--tool',
      'write_file',
      'path=new.txt',
      'content=5',
      '--',
      process.execPath,
      BIN,
      'serve',
    ];
    const denied = await run(args, { cwd: workspace });
    expect(denied.code).toBe(ExitCode.Denied);
    expect(denied.stderr).toMatch(
      /^toolwire: tool write_file was not run: it needs approval \(.*destructive.*\), and no one could be asked: there is no terminal/m,
    );
    expect(denied.stderr).not.toContain('said no');
    expect(denied.stderr).toContain('Pass --yes');
    expect(existsSync(join(workspace, 'new.txt'))).toBe(false);
    // content=5 is the string "5" (write_file's content is a string): --yes writes it.
    const written = await run([...args.slice(0, 5), '--yes', ...args.slice(5)], { cwd: workspace });
    expect(written.code).toBe(0);
    expect(existsSync(join(workspace, 'new.txt'))).toBe(true);
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

  it('exits 2 for an option that takes one value given twice; --header and --root may repeat', async () => {
    // `--tool err --tool echo` called echo, and the first --args was dropped without a word.
    for (const twice of [
      ['--tool', 'add', '--tool', 'echo', 'text=x'],
      ['--tool', 'echo', '--args', '{"text":"a"}', '--args={"text":"b"}'],
      ['--tool', 'echo', 'text=x', '--timeout', '5000', '--timeout', '6000'],
    ]) {
      const result = await run(['call', '--json', ...twice, ...SERVE_FIXTURE]);
      expect(result.code, twice.join(' ')).toBe(ExitCode.Usage);
      expect(failureObject(result).message).toMatch(
        /^--(tool|args|timeout) given twice \(it takes one value\)$/,
      );
    }
    const roots = await run(['tools', '--root', '.', '--root', 'test', '--json', ...SERVE_FIXTURE]);
    expect(roots.code).toBe(0);
  });

  it('exits 2 for a value that starts with a dash, naming the option and how to give such a value', async () => {
    // parseArgs' "Option '--timeout' argument is ambiguous." was all it said.
    const negative = await run(['tools', '--json', '--timeout', '-5', ...SERVE_FIXTURE]);
    expect(negative.code).toBe(ExitCode.Usage);
    expect(failureObject(negative).message).toBe(
      '--timeout needs a value: "-5" looks like an option (write --timeout=-5 if it is the value)',
    );
    const gateway = await run(['gateway', '--demo', '--approval-timeout', '-5']);
    expect(gateway.code).toBe(ExitCode.Usage);
    expect(gateway.stderr).toContain('--approval-timeout needs a value: "-5" looks like an option');
  });

  it('exits 2 for a --header value with a line break (it was a connection failure, exit 4)', async () => {
    for (const value of ['X: a\r\nInjected: 1', 'X: a\nb', 'X: a\rb']) {
      const result = await run(['tools', '--json', '--header', value, 'http://127.0.0.1:1/mcp']);
      expect(result.code, JSON.stringify(value)).toBe(ExitCode.Usage);
      expect(failureObject(result).message).toBe(
        '--header X: the value may not hold a CR, LF or NUL character',
      );
    }
  });

  it('exits 2 for a --timeout no timer takes (2^31 ms or more, 1e3, empty), at once', async () => {
    // 99999999999 ms used to overflow Node's timer: the connect "timed out" at once, exit 4.
    for (const value of ['2147483648', '99999999999', '1e3', '0x10', '', '0', '1.5']) {
      const result = await run(['tools', '--json', '--timeout', value, ...SERVE_FIXTURE]);
      expect(result.code, value).toBe(ExitCode.Usage);
      expect(failureObject(result).message, value).toBe(
        `--timeout must be a positive integer of milliseconds, at most 2147483647, got "${value}"`,
      );
      expect(result.stderr, value).not.toMatch(/TimeoutOverflowWarning/);
    }
    const longest = await run([
      'call',
      '--tool',
      'echo',
      '--timeout',
      '2147483647',
      'text=hi',
      ...SERVE_FIXTURE,
    ]);
    expect(longest.code).toBe(0);
    expect(longest.stdout).toBe('hi\n');
  });
});

describe('toolwire --max-time', () => {
  it('exits 2 at once for tools, resources and prompts, which ask for no progress; read takes it', async () => {
    for (const command of ['tools', 'resources', 'prompts']) {
      const help = await run([command, '--help']);
      expect(help.stdout, command).not.toContain('--max-time');
      const result = await run([command, '--json', '--max-time', '1000', ...SERVE_FIXTURE]);
      expect(result.code, command).toBe(ExitCode.Usage);
      expect(failureObject(result).message, command).toBe(
        '--max-time bounds a call, read or prompt only (a listing asks for no progress: --timeout bounds each of its requests)',
      );
    }
    for (const command of ['call', 'read', 'prompt'])
      expect((await run([command, '--help'])).stdout, command).toContain('--max-time MS');
    const read = await run(['read', '--max-time', '5000', 'test://static-text', ...SERVE_FIXTURE]);
    expect(read.code).toBe(0);
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
    // Its stdin is no terminal (a host's pipe, here the test's): no hint to try it from one.
    expect(result.stderr).toMatch(/^toolwire: serving protocol-fixture 1\.0\.0 over stdio\n/);
  });

  it("writes a served module's name on stderr with its terminal escapes shown, not obeyed", async () => {
    const dist = join(process.cwd(), 'dist', 'server.js');
    await writeFile(
      join(workspace, 'steering-name.mjs'),
      `import { Server } from ${JSON.stringify(dist)};\n` +
        `export default () => new Server({ name: 'evil\\u001b]0;PWNED\\u0007\\u202e', version: '1' });\n`,
    );
    const result = await run(['serve', 'steering-name.mjs'], { cwd: workspace, stdin: '' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('serving evil\\x1b]0;PWNED\\x07\\u202e 1 over stdio');
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(result.stderr).not.toContain(raw);
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
