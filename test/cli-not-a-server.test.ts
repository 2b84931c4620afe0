// `toolwire tools -- <a command that is not an MCP server>`: said plainly, fast, and within --timeout —
// `cat` (echoes our requests back), `ls` (prints plain text and exits), a program that prints plain text and
// exits with a code of its own, one that prints plain text forever, one that says nothing. Never the
// echoed "-32601 initialize", never "write after a stream was destroyed".
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { failureObject, runCli } from './_cli.js';

const PLAIN = 'test/fixtures/plain-text-program.mjs';
/** What a failure that is explained plainly never shows (the old messages, and a crash). */
const NOISE = /-32601|Method not found|write after|destroyed|Parse error|Unexpected token|\n {4}at /;
/**
 * A command that cannot answer is given up on at --timeout; closing it then takes a moment (SIGTERM comes
 * with the end of its stdin), two 1 s steps for one that ignores SIGTERM (then SIGKILL). The rest is margin for node starting twice on a loaded two-core machine.
 */
const GIVE_UP_MARGIN_MS = 6_000;

/** `toolwire tools --json --timeout MS -- node -e SCRIPT`. */
function toolsJson(timeoutMs: number, script: string) {
  return runCli(['tools', '--json', '--timeout', String(timeoutMs), '--', process.execPath, '-e', script]);
}

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolwire-not-mcp-')));
  await writeFile(join(workspace, 'alpha.txt'), 'a\n');
  await writeFile(join(workspace, 'beta.txt'), 'b\n');
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe('a command that is not an MCP server', () => {
  it('cat: says it echoes what it is sent, at once, in either era', async () => {
    for (const pinned of [[], ['--protocol-version', '2025-11-25'], ['--protocol-version', '2026-07-28']]) {
      const result = await runCli(['tools', '--timeout', '20000', ...pinned, '--', 'cat']);
      expect(result.code, pinned.join(' ')).toBe(ExitCode.Connection);
      expect(result.stderr).toBe(
        'toolwire: the command "cat" is not an MCP server: it echoes back what it is sent\n',
      );
      expect(result.stdout).toBe('');
      expect(result.ms).toBeLessThan(10_000); // far below the 20 s it was given
    }
  });

  it('ls: says it printed plain text and exited, with its exit code', async () => {
    const result = await runCli(['tools', '--', 'ls'], { cwd: workspace });
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(
      /^toolwire: the command "ls" is not an MCP server: it printed plain text on stdout \("alpha\.txt"\), not MCP messages, and exited \(exit code 0\) before answering the MCP handshake\n$/,
    );
    expect(result.stderr).not.toMatch(NOISE);
  });

  it('a program printing plain text: its exit code and the last lines of its stderr', async () => {
    const result = await runCli(['tools', '--', process.execPath, PLAIN]);
    expect(result.code).toBe(ExitCode.Connection);
    const [first, heading, ...stderrLines] = result.stderr.trimEnd().split('\n');
    expect(first).toMatch(
      /^toolwire: the command ".*plain-text-program\.mjs" is not an MCP server: it printed plain text on stdout \("Hello! I p…"\), not MCP messages, and exited \(exit code 7\) before answering the MCP handshake$/,
    );
    expect(heading).toBe('server stderr (last lines):');
    expect(stderrLines.at(-1)).toBe('  log line 15');
    expect(stderrLines.length).toBeLessThanOrEqual(12);
    expect(result.stderr).not.toMatch(NOISE);

    const json = await runCli(['tools', '--json', '--', process.execPath, PLAIN], {
      env: { PLAIN_EXIT_CODE: '3' },
    });
    expect(json.code).toBe(ExitCode.Connection);
    expect(failureObject(json)).toMatchObject({
      code: 'NOT_AN_MCP_SERVER',
      details: { exit: { code: 3, signal: null }, stderr: expect.stringMatching(/log line 15$/) },
    });
  });

  it('a program printing plain text forever: given up on at --timeout', async () => {
    const timeout = 2_000;
    const result = await runCli(['tools', '--timeout', String(timeout), '--', process.execPath, PLAIN], {
      env: { PLAIN_STAY: '1' },
    });
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(
      /^toolwire: the command ".*" is not an MCP server: it printed plain text on stdout \("Hello! I p…"\), not MCP messages, and did not answer the MCP handshake within 2000 ms$/m,
    );
    expect(result.stderr).not.toMatch(NOISE);
    expect(result.ms).toBeGreaterThanOrEqual(timeout);
    expect(result.ms).toBeLessThan(timeout + GIVE_UP_MARGIN_MS);
  });

  it('a program flooding stdout with plain text: given up on after 1000 lines, long before --timeout', async () => {
    // It prints as fast as it is read and never reads its stdin: each line used to be parsed the costly way,
    // answered with a -32700 queued for it without bound (≈1 GB), and the deadline came seconds late.
    const flood =
      "const l = 'y\\n'.repeat(1000); const w = () => { while (process.stdout.write(l)); process.stdout.once('drain', w); }; w();";
    const result = await toolsJson(20_000, flood);
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(
      /^toolwire: the command ".*" is not an MCP server: it printed plain text on stdout \("y"\), not MCP messages: 1000 lines and no answer to the MCP handshake$/m,
    );
    expect(failureObject(result)).toMatchObject({ code: 'NOT_AN_MCP_SERVER', details: { plainText: 'y' } });
    expect(result.ms).toBeLessThan(10_000); // half the 20 s it was given
  });

  it('a program printing plain text is not answered line by line (its stdin gets no -32700)', async () => {
    // 1500 plain lines, then what it was sent, counted on its stderr (shown with the failure) when its stdin
    // ends or SIGTERM comes.
    const counter = [
      "process.stdout.write('Hello\\n'.repeat(1500));",
      "let text = ''; process.stdin.on('data', (c) => (text += c));",
      "const say = () => { console.error('parse-error answers: ' + (text.split('-32700').length - 1)); process.exit(0); };",
      "process.stdin.on('end', say); process.on('SIGTERM', say);",
    ].join(' ');
    const result = await runCli(['tools', '--timeout', '20000', '--', process.execPath, '-e', counter]);
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(/not an MCP server: it printed plain text on stdout \("Hello"\)/);
    expect(result.stderr).toMatch(/^ {2}parse-error answers: 0$/m);
  });

  it('a program streaming JSON-RPC notifications and never answering: the deadline still comes', async () => {
    const timeout = 1_500;
    const note = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x' },
    });
    const flood = `const l = ${JSON.stringify(`${note}\n`)}.repeat(1000); const w = () => { while (process.stdout.write(l)); process.stdout.once('drain', w); }; w();`;
    const result = await toolsJson(timeout, flood);
    expect(result.code).toBe(ExitCode.Connection);
    expect(failureObject(result).code).toBe('CONNECT_TIMEOUT');
    expect(result.ms).toBeLessThan(timeout + GIVE_UP_MARGIN_MS);
  });

  it('a program printing text with no line end: said so, not "printed nothing"', async () => {
    const partial = "process.stdout.write('x'.repeat(100)); setInterval(() => {}, 1000);";
    const result = await toolsJson(1_000, partial);
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(
      /^toolwire: the command ".*" is not an MCP server: it printed 100 bytes on stdout and no whole line, not MCP messages, and did not answer the MCP handshake within 1000 ms$/m,
    );
    expect(failureObject(result).code).toBe('NOT_AN_MCP_SERVER');
  });

  it('a program given up on gets SIGTERM with the end of its stdin, not a second later', async () => {
    // It says, on SIGTERM, how long after its stdin ended that came ("none": before it saw the end).
    const waits = [
      "process.stdin.resume(); let ended; process.stdin.on('end', () => (ended = Date.now()));",
      "process.on('SIGTERM', () => { console.error('sigterm after ' + (ended === undefined ? 'none' : Date.now() - ended)); process.exit(0); });",
      'setInterval(() => {}, 1000);',
    ].join(' ');
    const result = await runCli(['tools', '--timeout', '1000', '--', process.execPath, '-e', waits]);
    expect(result.code).toBe(ExitCode.Connection);
    const after = /^ {2}sigterm after (none|\d+)$/m.exec(result.stderr)?.[1];
    expect(after).toBeDefined();
    if (after !== 'none') expect(Number(after)).toBeLessThan(500); // it was 1000: one shutdown step
  });

  it('a silent program: the handshake is bounded by --timeout (it took 37 s with --timeout 3000)', async () => {
    const timeout = 3_000;
    const result = await toolsJson(timeout, 'setTimeout(() => {}, 60_000)');
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toMatch(
      /^toolwire: the command ".*" did not answer the MCP handshake within 3000 ms; it printed nothing on stdout/,
    );
    expect(failureObject(result).code).toBe('CONNECT_TIMEOUT');
    expect(result.ms).toBeGreaterThanOrEqual(timeout);
    expect(result.ms).toBeLessThan(timeout + GIVE_UP_MARGIN_MS);
  });
});
