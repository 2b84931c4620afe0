// The gateway as a host spawns it: `toolwire gateway --stdio --config FILE`, spoken to by the official SDK
// 2.x client, its decision API on a port of its own (printed on stderr). Approvals that expire, the
// configuration file changed under a running gateway, `--print-config`, invalid configurations.
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { runCli } from './_cli.js';
import {
  BIN,
  CRASHY_FIXTURE,
  GatewayEvents,
  PROTOCOL_FIXTURE,
  TOKEN,
  apiClient,
  startGateway,
  toolwireUpstream,
  waitForLine,
  writeConfig,
} from './_gateway.js';

const APPROVAL_TIMEOUT_MS = 400;

const baseConfig = {
  upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
  policy: { rules: [{ upstream: 'fx', tool: 'add', action: 'ask' }], default: 'allow' },
  reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
};

let configFile: string;
let client: ClientV2;
let transport: StdioClientTransport;
let stderr = '';
let base: string;
let api: ReturnType<typeof apiClient>;

/** Resolves once stderr matches `pattern` (what the gateway printed so far, or later). */
function printed(pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve) => {
    const check = () => {
      const match = pattern.exec(stderr);
      if (!match) return false;
      resolve(match);
      return true;
    };
    if (check()) return;
    const stream = transport.stderr!;
    const listener = () => {
      if (check()) stream.off('data', listener);
    };
    stream.on('data', listener);
  });
}

async function events(): Promise<GatewayEvents> {
  return new GatewayEvents(await api('/events'));
}

const texts = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content.map((block) => block.text);

beforeAll(async () => {
  configFile = writeConfig(baseConfig);
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      BIN,
      'gateway',
      '--stdio',
      '--config',
      configFile,
      '--approval-timeout',
      String(APPROVAL_TIMEOUT_MS),
    ],
    env: { ...(process.env as Record<string, string>), TOOLWIRE_TOKEN: TOKEN },
    stderr: 'pipe',
  });
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new ClientV2({ name: 'host', version: '2.0.0' }, { capabilities: { elicitation: {} } });
  await client.connect(transport);
  const [, url] = await printed(/decision API: (http:\/\/\S+)\/api\n/);
  base = url!;
  api = apiClient(base);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

describe('the gateway over stdio, SDK 2.x client', () => {
  it('serves the upstream tools over stdio, stdout carrying MCP only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('fx__echo');
    expect(texts(await client.callTool({ name: 'fx__echo', arguments: { text: 'over stdio' } }))).toEqual([
      'over stdio',
    ]);
    // Printed after the line the setup waited for, on stderr (a pipe apart from the answers): polled.
    await expect.poll(() => stderr).toContain('API token: the one in TOOLWIRE_TOKEN');
    expect(stderr).not.toContain(TOKEN);
  });

  it("relays the upstream's elicitation to the host", async () => {
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    expect(texts(await client.callTool({ name: 'fx__ask', arguments: {} }))).toEqual(['accept:Ada']);
  });

  it('fails a call no one approves in time with an isError result, and refuses the late decision', async () => {
    const stream = await events();
    const started = performance.now();
    const call = client.callTool({ name: 'fx__add', arguments: { a: 1, b: 1 } });
    const { id } = (await stream.next('approval.pending')).approval as { id: string };
    expect(await call).toEqual({
      content: [{ type: 'text', text: 'The gateway did not run fx__add: no one approved the call in time.' }],
      isError: true,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(APPROVAL_TIMEOUT_MS - 5);
    await stream.next('approval.decided', (e) => (e.approval as { id: string }).id === id);
    const late = await api(`/approvals/${id}/approve`, { body: {} });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({
      error: { code: 'APPROVAL_SETTLED', message: expect.stringContaining('expired') },
    });
  });

  it('applies a changed configuration file without a restart, and keeps the running one when it is invalid', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', async () => {
        const { tools } = await client.listTools();
        if (tools.some((tool) => tool.name === 'crashy__hello')) resolve();
      }),
    );
    writeFileSync(
      configFile,
      JSON.stringify({
        ...baseConfig,
        upstreams: { ...baseConfig.upstreams, crashy: toolwireUpstream(CRASHY_FIXTURE) },
        policy: { rules: [{ upstream: 'fx', tool: 'echo', action: 'deny' }], default: 'allow' },
      }),
    );
    await changed;
    // The rules were replaced with the upstreams: echo is denied now, add no longer asks.
    expect(await client.callTool({ name: 'fx__echo', arguments: { text: 'x' } })).toMatchObject({
      isError: true,
    });
    expect(await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } })).toMatchObject({
      structuredContent: { sum: 3 },
    });
    // Each problem once, at its path, line and column: not also on the first line, nor as ajv's 'must match
    // "else" schema';
    // and no "See: npx toolwire gateway --help", which does not help on a reload.
    writeFileSync(
      configFile,
      '{ "upstreams": { "fx": { "command": 5 } }, "policy": { "default": "maybe" } }',
    );
    const [refused] = await printed(
      /configuration not applied, the running one stays: [^]*?\/policy\/default[ :].*\n/,
    );
    expect(refused).toBe(
      `configuration not applied, the running one stays: invalid gateway configuration ${configFile}: 2 problems\n` +
        '  /upstreams/fx/command (line 1, column 37): must be string\n' +
        '  /policy/default (line 1, column 67): must be equal to one of the allowed values: "allow", "ask", "deny"\n',
    );
    expect(stderr).not.toMatch(/must match "(else|then)" schema|See: npx toolwire gateway --help/);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('crashy__hello');
    // Back to one upstream, said in words ("1 upstreams" before).
    writeFileSync(configFile, JSON.stringify(baseConfig));
    await printed(/configuration applied \(1 upstream\)\n/);
    // A deleted file is said to be (it was silent); the running configuration stays, and a new file applies.
    unlinkSync(configFile);
    await printed(/was removed: the running configuration stays \(a new file there is applied\)\n/);
    expect(stderr).toContain(`toolwire gateway: ${configFile} was removed`);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fx__echo');
    writeFileSync(configFile, JSON.stringify(baseConfig));
    await expect.poll(() => stderr.match(/configuration applied \(1 upstream\)\n/g)?.length).toBe(2);
  });
});

describe('toolwire gateway on the command line', () => {
  it('runs the demo as npm start does: write_file asks, the other tools run', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'toolwire-demo-'));
    writeFileSync(path.join(root, 'hello.txt'), 'hello');
    const demo = await startGateway(['--demo'], { TOOLWIRE_DEMO_ROOT: root });
    const model = new Client({ name: 'model', version: '1.0.0' });
    try {
      await model.connect(new StreamableHttpClientTransport({ url: demo.url }));
      expect((await model.listTools()).map((tool) => tool.name).sort()).toEqual([
        'demo__list_files',
        'demo__read_file',
        'demo__search_files',
        'demo__workspace_info',
        'demo__write_file',
      ]);
      expect((await model.callTool('demo__read_file', { path: 'hello.txt' })).content).toEqual([
        { type: 'text', text: 'hello' },
      ]);
      const events = await demo.events();
      const write = model.callTool('demo__write_file', { path: 'new.txt', content: 'x' });
      const { id } = (await events.next('approval.pending')).approval as { id: string };
      await demo.api(`/approvals/${id}/deny`, { body: { reason: 'demo' } });
      expect(await write).toMatchObject({ isError: true });
      // The gateway's terminal says so too (its stderr is a pipe: wait for the line).
      const line = await waitForLine(
        () => demo.stderr(),
        /approval (\S+) pending: demo\.write_file (.*)\n/,
        demo.child,
      );
      expect([line[1], line[2]]).toEqual([id, '{"path":"new.txt","content":"x"}']);
      // The upstream's stderr says whose it is, and gives no hint to try it alone ("try: npx toolwire tools
      // -- …", for a person who started it at a terminal): through the gateway it read as the gateway's advice.
      await waitForLine(
        () => demo.stderr(),
        /^\[demo\] toolwire: serving the demo server \(root .*\) over stdio\n/m,
        demo.child,
      );
      expect(demo.stderr()).not.toMatch(/^toolwire: serving/m);
      expect(demo.stderr()).not.toMatch(/try: /);
    } finally {
      await model.close();
      await demo.close();
    }
  });

  it("roots npm start's demo in a fresh folder under the temporary directory, which it names, not in the cwd", async () => {
    // As npm start runs it: from the clone (this process's cwd), TOOLWIRE_DEMO_ROOT unset.
    const demo = await startGateway(['--demo'], { TOOLWIRE_DEMO_ROOT: '' });
    const model = new Client({ name: 'model', version: '1.0.0' });
    const file = `demo-root-${process.pid}.txt`;
    let root: string | undefined;
    try {
      await model.connect(new StreamableHttpClientTransport({ url: demo.url }));
      const info = await model.callTool('demo__workspace_info', {});
      const said = /^Workspace root: (.+)$/m.exec((info.content[0] as { text: string }).text);
      root = said?.[1];
      expect(root).toBeDefined();
      expect(root).not.toBe(realpathSync(process.cwd()));
      expect(root!.startsWith(`${realpathSync(tmpdir())}${path.sep}toolwire-demo-`)).toBe(true);
      expect(demo.stderr()).toMatch(
        /demo workspace: (.+) \(a fresh folder; TOOLWIRE_DEMO_ROOT serves another\)\n/,
      );
      expect(realpathSync(/demo workspace: (.+) \(a fresh/.exec(demo.stderr())![1]!)).toBe(root);
      // A write, once approved, lands there.
      const events = await demo.events();
      const write = model.callTool('demo__write_file', { path: file, content: 'x' });
      const { id } = (await events.next('approval.pending')).approval as { id: string };
      await demo.api(`/approvals/${id}/approve`, { body: {} });
      expect((await write).isError).toBeFalsy();
      expect(readFileSync(path.join(root!, file), 'utf8')).toBe('x');
      expect(existsSync(path.join(process.cwd(), file))).toBe(false);
    } finally {
      await model.close();
      await demo.close();
      rmSync(path.join(process.cwd(), file), { force: true });
      if (root?.includes('toolwire-demo-')) rmSync(root, { recursive: true, force: true });
    }
  });

  it('says why a stdio upstream is down: the exit code of its process, not only that the connection closed', async () => {
    const exits = [process.execPath, '-e', 'process.exit(3)'];
    const gateway = await startGateway(['--upstream', 'bad', '--', ...exits]);
    try {
      const [, status] = await waitForLine(
        () => gateway.stderr(),
        /1 upstream \((bad: .*)\)\n/,
        gateway.child,
      );
      expect(status).toBe('bad: down (The server process exited unexpectedly (exit code 3))');
      const response = await gateway.api('/upstreams');
      const { upstreams } = (await response.json()) as { upstreams: { name: string; error?: string }[] };
      expect(upstreams).toMatchObject([{ name: 'bad', error: expect.stringContaining('exit code 3') }]);
    } finally {
      await gateway.close();
    }
  });

  it("passes a stdio upstream's stderr through under its name, its control characters escaped", async () => {
    // A carriage return and an escape sequence would move the cursor back over "[fake] " on a terminal, so
    // that the line read as the gateway's own.
    const spoof =
      "process.stderr.write('\\rtoolwire gateway: all upstreams ok\\x1b[2K\\n', () => process.exit(3))";
    const gateway = await startGateway(['--upstream', 'fake', '--', process.execPath, '-e', spoof]);
    try {
      const [line] = await waitForLine(() => gateway.stderr(), /^\[fake\] [^\n]*\n/m, gateway.child);
      expect(line).toBe('[fake] \\u000dtoolwire gateway: all upstreams ok\\u001b[2K\n');
      expect(gateway.stderr()).not.toContain('\r');
      expect(gateway.stderr()).not.toContain('\u001b');
    } finally {
      await gateway.close();
    }
  });

  it('prints the mcpServers entry a host needs (stdio: the command; --http: the URL)', async () => {
    const file = writeConfig(baseConfig);
    const stdio = await runCli(['gateway', '--config', file, '--print-config']);
    expect(stdio.code).toBe(0);
    expect(JSON.parse(stdio.stdout)).toEqual({
      mcpServers: {
        'toolwire-gateway': {
          command: process.execPath,
          args: [BIN, 'gateway', '--stdio', '--config', file],
        },
      },
    });
    // Files named relative to the directory it is run in, in either form, are printed absolute: a host starts
    // the gateway in a directory of its own (--config=FILE stayed relative, and so did --audit FILE).
    const dir = path.dirname(file);
    const relative = await runCli(
      ['gateway', '--config=gateway.json', '--audit', 'audit.jsonl', '--print-config'],
      { cwd: dir },
    );
    expect(relative.code).toBe(0);
    expect(JSON.parse(relative.stdout)).toEqual({
      mcpServers: {
        'toolwire-gateway': {
          command: process.execPath,
          args: [BIN, 'gateway', '--stdio', `--config=${file}`, '--audit', path.join(dir, 'audit.jsonl')],
        },
      },
    });
    const http = await runCli([
      'gateway',
      '--upstream',
      'web=http://127.0.0.1:9/mcp',
      '--http',
      '--port',
      '4321',
      '--print-config',
    ]);
    expect(JSON.parse(http.stdout)).toEqual({
      mcpServers: { 'toolwire-gateway': { type: 'http', url: 'http://127.0.0.1:4321/mcp' } },
    });
  });

  it('refuses an invalid configuration with exit 2, naming each problem by its path, line and column', async () => {
    const bad = writeConfig({
      upstreams: { a: { command: 'x' }, b: { command: 'y', prefix: 'a' } },
      policy: { default: 'maybe' },
    });
    const run = await runCli(['gateway', '--config', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '/policy/default (line 12, column 16): must be equal to one of the allowed values',
    );
    const collision = await runCli([
      'gateway',
      '--config',
      writeConfig({ upstreams: { a: { command: 'x' }, b: { command: 'y', prefix: 'a' } } }),
    ]);
    expect(collision.code).toBe(2);
    expect(collision.stderr).toContain(
      '/upstreams/b/prefix (line 8, column 17): has the prefix "a" of upstream "a"',
    );
    // Each problem once, at its path: it was on the first line too, with ajv's 'must match "else" schema'.
    const typed = writeConfig({ upstreams: { a: { command: 5 } }, policy: { default: 'maybe' } });
    const twice = await runCli(['gateway', '--config', typed]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe(
      `toolwire: invalid gateway configuration ${typed}: 2 problems\n` +
        '  /upstreams/a/command (line 4, column 18): must be string\n' +
        '  /policy/default (line 8, column 16): must be equal to one of the allowed values: "allow", "ask", "deny"\n' +
        'See: npx toolwire gateway --help\n',
    );
    // A file written by hand: the line of the rule and of the value (issue 17: errors "that name the
    // line/path"); a syntax error, where the text breaks.
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-gateway-'));
    const handWritten = path.join(dir, 'by-hand.json');
    writeFileSync(
      handWritten,
      [
        '{',
        '  "upstreams": {',
        '    "files": { "command": "npx", "args": ["toolwire", "serve"] }',
        '  },',
        '  "policy": {',
        '    "rules": [',
        '      { "upstream": "files", "tool": "write_file", "action": "ask" },',
        '      { "upstream": "files", "tool": "*", "action": "alow" }',
        '    ]',
        '  }',
        '}',
      ].join('\n'),
    );
    const byHand = await runCli(['gateway', '--stdio', '--config', handWritten]);
    expect(byHand.code).toBe(2);
    expect(byHand.stderr).toBe(
      `toolwire: invalid gateway configuration ${handWritten}: 1 problem\n` +
        '  /policy/rules/1/action (line 8, column 53): must be equal to one of the allowed values: "allow", "ask", "deny"\n' +
        'See: npx toolwire gateway --help\n',
    );
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "upstreams": {\n    "a": { "command": "node", }\n  }\n}\n');
    const syntax = await runCli(['gateway', '--stdio', '--config', broken]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(
      /^ {2}line 3, column 31: not valid JSON \(Expected double-quoted property name in JSON at position 49.*\)$/m,
    );
    const flags = await runCli([
      'gateway',
      '--policy',
      'fx.add=maybe',
      '--upstream',
      'fx=http://127.0.0.1:9/mcp',
    ]);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toContain('--policy must be NAME.TOOL=allow|ask|deny');
  });
});
