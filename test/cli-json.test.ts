// `--json` covers failures too: every exit code >= 2 prints exactly one JSON object on stdout,
// {"error": {"code", "message", "details"?}} with a stable code, besides the human line on stderr.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { BIN, SERVE_FIXTURE, failureObject, runCli, type CliRun } from './_cli.js';
import { closedPort } from './_closed-port.js';

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolwire-cli-json-')));
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

/** The failure's JSON, checked against its human line: same message, on stderr after `toolwire: `. */
function failure(run: CliRun, exitCode: number, code: string) {
  expect(run.code, run.stderr).toBe(exitCode);
  const error = failureObject(run);
  expect(error.code).toBe(code);
  expect(run.stderr.startsWith(`toolwire: ${error.message}\n`), run.stderr).toBe(true);
  return error;
}

describe('toolwire --json on failure', () => {
  it('usage errors (exit 2): code USAGE or a more precise one, with the help to read', async () => {
    const timeout = failure(
      await runCli(['tools', '--json', '--timeout', 'soon', ...SERVE_FIXTURE]),
      2,
      'USAGE',
    );
    expect(timeout.details).toEqual({ hint: 'npx toolwire tools --help' });
    failure(await runCli(['call', '--json', ...SERVE_FIXTURE]), 2, 'USAGE');
    failure(await runCli(['read', '--json', ...SERVE_FIXTURE]), 2, 'USAGE');
    failure(await runCli(['tools', '--json', '--no-such-option', ...SERVE_FIXTURE]), 2, 'USAGE');
    failure(await runCli(['frobnicate', '--json']), 2, 'UNKNOWN_COMMAND');
    failure(
      await runCli(['tools', '--json', '--protocol-version', 'latest', ...SERVE_FIXTURE]),
      2,
      'UNKNOWN_PROTOCOL_VERSION',
    );
    const tool = failure(
      await runCli(['call', '--json', '--tool', 'nope', ...SERVE_FIXTURE]),
      2,
      'UNKNOWN_TOOL',
    );
    expect(tool.details).toMatchObject({ tool: 'nope', tools: expect.arrayContaining(['echo', 'add']) });
    failure(await runCli(['prompt', '--json', 'nope', ...SERVE_FIXTURE]), 2, 'UNKNOWN_PROMPT');
    // The demo declares no prompts: a prompt of it is unknown (exit 2), not a -32601 from prompts/get (exit 3).
    const none = failure(
      await runCli(['prompt', '--json', 'review', '--', process.execPath, BIN, 'serve']),
      2,
      'UNKNOWN_PROMPT',
    );
    expect(none.details).toMatchObject({ prompt: 'review', prompts: [] });
    expect(none.message).toBe('the server has no prompt "review"');
  });

  it('protocol errors (exit 3): the JSON-RPC error by name, its number and data in details', async () => {
    const error = failure(
      await runCli(['read', '--json', 'test://no-such-thing', ...SERVE_FIXTURE]),
      3,
      'INVALID_PARAMS',
    );
    expect(error.details).toMatchObject({ jsonrpcCode: -32602, data: { uri: 'test://no-such-thing' } });
  });

  it('connection failures (exit 4): spawn failures, refused connections, not an MCP server', async () => {
    const spawn = failure(
      await runCli(['tools', '--json', '--', 'definitely-not-a-command-toolwire']),
      4,
      'SPAWN_FAILED',
    );
    expect(spawn.message).toMatch(/could not connect to definitely-not-a-command-toolwire: .*ENOENT/);
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const refused = failure(await runCli(['prompts', '--json', url]), 4, 'CONNECTION_CLOSED');
    expect(refused.details).toMatchObject({ target: url });
    failure(await runCli(['resources', '--json', '--', 'cat']), 4, 'NOT_AN_MCP_SERVER');
  });

  it('denied (exit 5): a call that needs approval with no one to ask', async () => {
    const error = failure(
      await runCli(
        [
          'call',
          '--json',
          '--tool',
          'write_file',
          'path=a.txt',
          'content=x',
          '--',
          process.execPath,
          BIN,
          'serve',
        ],
        {
          cwd: workspace,
        },
      ),
      5,
      'TOOL_CALL_DENIED',
    );
    expect(error.details).toMatchObject({
      tool: 'write_file',
      reason: expect.stringMatching(/no one could be asked/),
    });
  });

  it('a tool error (exit 1) prints the result itself; a success prints no error object', async () => {
    const toolError = await runCli(['call', '--json', '--tool', 'throws', ...SERVE_FIXTURE]);
    expect(toolError.code).toBe(ExitCode.ToolError);
    expect(JSON.parse(toolError.stdout)).toMatchObject({ isError: true, content: [{ type: 'text' }] });
    const ok = await runCli(['prompts', '--json', ...SERVE_FIXTURE]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout)).toHaveLength(4);
  });

  it('without --json, stdout stays empty on failure', async () => {
    const result = await runCli(['read', 'test://no-such-thing', ...SERVE_FIXTURE]);
    expect(result.code).toBe(ExitCode.Protocol);
    expect(result.stdout).toBe('');
  });
});
