// `toolwire resources`, `read URI`, `prompts` and `prompt NAME key=value...`, run for real against the
// protocol fixture (4 resources, 2 templates, 4 prompts; pages of 3), over stdio and over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { BIN, FIXTURE, REPO, SERVE_FIXTURE, failureObject, runCli } from './_cli.js';

let http: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  http = spawn(process.execPath, [BIN, 'serve', FIXTURE, '--http', '--port', '0'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  url = await new Promise<string>((resolve) =>
    createInterface({ input: http!.stdout! }).once('line', resolve),
  );
});

afterAll(async () => {
  if (!http || http.exitCode !== null) return;
  const exited = new Promise((resolve) => http!.once('exit', resolve));
  http.kill('SIGTERM');
  await exited;
});

describe('toolwire resources', () => {
  it('lists every resource and template (all pages)', async () => {
    const result = await runCli(['resources', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^protocol-fixture 1\.0\.0 \(protocol [\d-]+\): 4 resources, 2 templates\n/,
    );
    expect(result.stdout).toContain(
      'test://static-text\n  static-text — Static text, text/plain\n  A static text resource',
    );
    expect(result.stdout).toContain('test://static-binary\n  static-binary, image/png, 70 bytes');
    expect(result.stdout).toContain(
      'Templates:\n\ntest://template/{id}/data\n  template-data — Template data',
    );
  });

  it('prints {resources, resourceTemplates} with --json, over HTTP too', async () => {
    for (const target of [SERVE_FIXTURE, [url]]) {
      const result = await runCli(['resources', '--json', ...target]);
      expect(result.code, target.join(' ')).toBe(0);
      const listed = JSON.parse(result.stdout) as {
        resources: { uri: string }[];
        resourceTemplates: unknown[];
      };
      expect(listed.resources.map((r) => r.uri)).toEqual([
        'test://static-text',
        'test://static-binary',
        'test://static-json',
        'test://watched-resource',
      ]);
      expect(listed.resourceTemplates).toHaveLength(2);
    }
  });
});

describe('toolwire read', () => {
  it('prints text as it is and binary as a summary', async () => {
    const text = await runCli(['read', 'test://static-text', ...SERVE_FIXTURE]);
    expect(text).toMatchObject({ code: 0, stdout: 'This is the content of the static text resource.\n' });
    const blob = await runCli(['read', 'test://static-binary', ...SERVE_FIXTURE]);
    expect(blob).toMatchObject({ code: 0, stdout: '[blob test://static-binary image/png, 70 bytes]\n' });
  });

  it('takes the URI first and the server URL last; --json prints the raw result', async () => {
    const result = await runCli(['read', '--json', 'test://static-text', url]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      contents: [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    });
  });

  it('exits 3 for a resource the server does not have, 2 without a URI', async () => {
    const missing = await runCli(['read', 'test://nothing-here', ...SERVE_FIXTURE]);
    expect(missing.code).toBe(ExitCode.Protocol);
    expect(missing.stderr).toMatch(/^toolwire: the server answered with error -32602/);
    const noUri = await runCli(['read', ...SERVE_FIXTURE]);
    expect(noUri.code).toBe(ExitCode.Usage);
    expect(noUri.stderr).toContain('missing the URI of the resource to read');
    expect(noUri.stderr).toContain('See: npx toolwire read --help');
  });
});

describe('toolwire prompts and prompt', () => {
  it('lists every prompt with its arguments', async () => {
    const result = await runCli(['prompts', ...SERVE_FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^protocol-fixture 1\.0\.0 \(protocol [\d-]+\): 4 prompts\n/);
    expect(result.stdout).toContain(
      'test_prompt_with_arguments — Prompt with arguments\n  A prompt with two required arguments\n  arguments: arg1 (required), arg2 (required)',
    );
    expect(result.stdout).toContain('test_simple_prompt\n  A prompt without arguments\n  arguments: (none)');
  });

  it('gets a prompt with key=value arguments (strings as written), as text or --json', async () => {
    const result = await runCli([
      'prompt',
      'test_prompt_with_arguments',
      'arg1=5',
      'arg2=two words',
      ...SERVE_FIXTURE,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("[user]\nPrompt with arguments: arg1='5', arg2='two words'\n");
    const json = await runCli(['prompt', '--json', 'test_simple_prompt', url]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
  });

  it('exits 2, asking nothing, for missing or unknown arguments and unknown prompts', async () => {
    const missing = await runCli(['prompt', 'test_prompt_with_arguments', 'arg1=a', ...SERVE_FIXTURE]);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('wrong arguments for prompt test_prompt_with_arguments: missing arg2');
    expect(missing.stderr).toContain('test_prompt_with_arguments takes: arg1 (required), arg2 (required)');
    const extra = await runCli(['prompt', '--json', 'test_simple_prompt', 'tone=dry', ...SERVE_FIXTURE]);
    expect(extra.code).toBe(ExitCode.Usage);
    expect(failureObject(extra)).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { unknown: ['tone'] } });
    const unknown = await runCli(['prompt', 'nope', ...SERVE_FIXTURE]);
    expect(unknown.code).toBe(ExitCode.Usage);
    expect(unknown.stderr).toContain('the server has no prompt "nope"');
    expect(unknown.stderr).toContain(
      `See: npx toolwire prompts -- ${process.execPath} ${BIN} serve ${FIXTURE}`,
    );
  });
});

describe('arguments named after Object.prototype members', () => {
  const OWN_NAMES = ['--', process.execPath, BIN, 'serve', 'test/fixtures/own-names-server.mjs'];

  it('prompt: a required `constructor` is missing until given (it was taken as given: exit 3)', async () => {
    const missing = await runCli(['prompt', '--json', 'named', 'toString=t', ...OWN_NAMES]);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(failureObject(missing)).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { missing: ['constructor'], unknown: [] },
    });
    const given = await runCli(['prompt', 'named', 'constructor=c', 'toString=t', ...OWN_NAMES]);
    expect(given.code).toBe(0);
    expect(given.stdout).toBe('[user]\n{"constructor":"c","toString":"t"}\n');
  });

  it('call: `__proto__=…` is sent as an argument of that name, as --args sends it (it was dropped)', async () => {
    const pair = await runCli(['call', '--tool', 'say_args', '__proto__={"s":"x"}', ...OWN_NAMES]);
    const args = await runCli([
      'call',
      '--tool',
      'say_args',
      '--args',
      '{"__proto__":{"s":"x"}}',
      ...OWN_NAMES,
    ]);
    expect(pair.code).toBe(0);
    expect(pair.stdout).toBe('{"__proto__":{"s":"x"}}\n');
    expect(args.stdout).toBe(pair.stdout);
  });
});
