// `toolwire gateway` as its help and `npm start` show it to a newcomer: the help's example runs as written
// (the gateway's flags before `--upstream NAME --`, the upstream's command after), and `--demo` (what
// `npm start` runs) takes `--policy`, `--default` and `--trust` as any configuration does.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';
import { BIN, startGateway, waitForLine, type RunningGateway } from './_gateway.js';

/** Each exposed tool's policy action, as the decision API reports it. */
async function policies(gateway: RunningGateway): Promise<Record<string, string>> {
  const response = await gateway.api('/tools');
  expect(response.status).toBe(200);
  const { tools } = (await response.json()) as { tools: { name: string; policy: { action: string } }[] };
  return Object.fromEntries(tools.map((tool) => [tool.name, tool.policy.action]));
}

describe('toolwire gateway --help', () => {
  it('shows an example that runs as written: the policy applies and the upstream connects', async () => {
    const help = await runCli(['gateway', '--help']);
    const line = help.stdout.split('\n').find((text) => text.includes(' --upstream files -- '));
    expect(line).toBeDefined();
    // npx toolwire gateway --http … --upstream files -- npx toolwire serve
    const words = line!.trim().replaceAll("'", '').split(/\s+/);
    expect(words.slice(0, 3)).toEqual(['npx', 'toolwire', 'gateway']);
    const dashes = words.indexOf('--');
    const flags = words.slice(3, dashes).filter((word) => word !== '--http');
    expect(words.slice(dashes + 1, dashes + 3)).toEqual(['npx', 'toolwire']);
    const command = [process.execPath, BIN, ...words.slice(dashes + 3)];
    const root = mkdtempSync(path.join(tmpdir(), 'toolwire-help-example-'));
    const gateway = await startGateway([...flags, '--', ...command], { TOOLWIRE_DEMO_ROOT: root });
    try {
      const [, status] = await waitForLine(
        () => gateway.stderr(),
        /1 upstream \((files: [^)]*)\)/,
        gateway.child,
      );
      expect(status).toBe('files: ready, 5 tools');
      expect(await policies(gateway)).toMatchObject({
        files__write_file: 'ask',
        files__read_file: 'allow',
      });
    } finally {
      await gateway.close();
    }
  });
});

describe('toolwire gateway --demo', () => {
  it('applies --policy and --default on top of the demo policy', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'toolwire-demo-flags-'));
    const gateway = await startGateway(['--demo', '--policy', 'demo.read_file=deny', '--default', 'ask'], {
      TOOLWIRE_DEMO_ROOT: root,
    });
    try {
      expect(await policies(gateway)).toEqual({
        demo__list_files: 'ask',
        demo__read_file: 'deny',
        demo__search_files: 'ask',
        demo__write_file: 'ask',
        demo__workspace_info: 'ask',
      });
    } finally {
      await gateway.close();
    }
  });

  it.each([
    [['--default', 'maybe'], /--default must be allow, ask or deny, got "maybe"/],
    [['--policy', 'demo.read_file=perhaps'], /--policy must be NAME\.TOOL=allow\|ask\|deny/],
    [['--trust', 'files'], /--trust files: there is no upstream of that name/],
    [['--api-port', '0'], /--api-port goes with --stdio: over HTTP the decision API is on --port/],
  ])('exits 2 for %j, saying what is wrong, before serving anything', async (flags, message) => {
    // --print-config: a gateway that took the flags prints its entry and exits 0 instead of serving on.
    const run = await runCli(['gateway', '--demo', '--port', '0', '--print-config', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});
