// Human approval and audit of tool calls on the client (issue 5): the policy decides before anything is
// sent, over the in-memory pair against a toolwire Server whose tools carry annotations; then
// `toolwire call` run for real without a terminal (the CLI imports dist/: build first).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { terminalApprover } from '../src/cli/terminal-approver.js';
import {
  Client,
  ClientError,
  argumentsDigest,
  canonicalJson,
  type ApprovalOptions,
  type ApprovalRequest,
  type ClientAuditRecord,
} from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { LocalErrorCode, type JsonObject } from '../src/protocol/index.js';
import * as source from '../src/server/index.js';
import type { Server } from '../src/server/index.js';
import { digestOfText } from '../src/stores/digest-of-text.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { fakeTerminal } from './_terminal.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/approval-server.mjs', import.meta.url));

type Build = (mod: typeof source, ran: (name: string, args: JsonObject) => void) => Server;

interface Connected {
  client: Client;
  /** Tool calls the server's handlers really ran. */
  ran: { name: string; args: JsonObject }[];
  /** The `tools/call` requests the client put on the wire. */
  wireCalls: () => JsonObject[];
  audit: ClientAuditRecord[];
  [Symbol.asyncDispose](): Promise<void>;
}

async function connect(approval?: ApprovalOptions): Promise<Connected> {
  const ran: { name: string; args: JsonObject }[] = [];
  const server = ((await import(FIXTURE)) as { build: Build }).build(source, (name, args) =>
    ran.push({ name, args }),
  );
  const [clientEnd, serverEnd] = createLinkedPair();
  const sent: unknown[] = [];
  const send = clientEnd.send.bind(clientEnd);
  clientEnd.send = (message) => {
    sent.push(message);
    return send(message);
  };
  await server.connect(serverEnd);
  const audit: ClientAuditRecord[] = [];
  const client = new Client(
    { name: 'approval-test', version: '1.0.0' },
    { ...(approval ? { approval } : {}), onAudit: (record) => audit.push(record) },
  );
  await client.connect(clientEnd);
  const wireCalls = () =>
    sent
      .flat()
      .filter((m): m is JsonObject => (m as JsonObject).method === 'tools/call')
      .map((m) => m.params as JsonObject);
  return {
    client,
    ran,
    wireCalls,
    audit,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/** Calls a tool and says what happened: `ran`, or the code of the error thrown. */
async function outcome(client: Client, name: string, args: JsonObject = {}): Promise<string> {
  try {
    await client.callTool(name, args);
    return 'ran';
  } catch (error) {
    return error instanceof ClientError ? error.code : String(error);
  }
}

const DENIED = LocalErrorCode.ToolCallDenied;

describe('approval policy: rules', () => {
  it('the first matching rule wins, with globs on tool and server names', async () => {
    await using c = await connect({
      rules: [
        { tool: 'fs.read', action: 'allow' },
        { tool: 'fs.*', action: 'deny' },
        { server: 'other-*', tool: '*', action: 'deny' },
        { server: 'approval-*', tool: '*_delete', action: 'deny' },
        { tool: '*', action: 'allow' },
      ],
    });
    expect(await outcome(c.client, 'fs.read')).toBe('ran');
    expect(await outcome(c.client, 'fs.write')).toBe(DENIED);
    expect(await outcome(c.client, 'file_delete')).toBe(DENIED);
    expect(await outcome(c.client, 'web_search')).toBe('ran');
    expect(c.ran.map((r) => r.name)).toEqual(['fs.read', 'web_search']);
    expect(c.wireCalls().map((p) => p.name)).toEqual(['fs.read', 'web_search']);
  });

  it('a rule decides without the annotations, even for a trusted server', async () => {
    await using c = await connect({ trustAnnotations: true, rules: [{ tool: 'fs.read', action: 'deny' }] });
    expect(await outcome(c.client, 'fs.read')).toBe(DENIED);
    expect(c.ran).toEqual([]);
  });
});

describe('approval policy: names the server chose', () => {
  it('matches a 100,000-character server name and tool name without stalling the event loop', async () => {
    // A server that names itself and its tool to make a backtracking glob take seconds to minutes; the rule
    // globs are ordinary ones a user writes.
    const [clientEnd, serverEnd] = createLinkedPair();
    const server = new Peer();
    const serverName = '_'.repeat(100_000);
    const toolName = '-'.repeat(100_000);
    server.setRequestHandler('initialize', () => ({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: serverName, version: '1' },
    }));
    server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'ran' }] }));
    await server.connect(serverEnd);
    const client = new Client(
      { name: 'approval-test', version: '1.0.0' },
      {
        approval: {
          rules: [
            { server: '*_*_delete', tool: '*', action: 'deny' },
            { tool: '*-*-*-prod', action: 'deny' },
            { tool: '*', action: 'allow' },
          ],
        },
      },
    );
    await client.connect(clientEnd);
    let longestStall = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      expect(await outcome(client, toolName)).toBe('ran');
      expect(await outcome(client, `${toolName}prod`)).toBe(DENIED);
      // The regexps took about 26 s for the first and hours for the second; the matcher takes milliseconds.
      expect(performance.now() - started).toBeLessThan(1000);
      expect(longestStall).toBeLessThan(1000);
    } finally {
      clearInterval(tick);
      await client.close();
    }
  });
});

describe('approval policy: annotations', () => {
  it('trusted annotations: read-only allowed; destructive, open-world and unannotated ask', async () => {
    const asked: string[] = [];
    await using c = await connect({
      trustAnnotations: true,
      approver: async (request) => {
        asked.push(`${request.tool.name}: ${request.reason}`);
        return 'once';
      },
    });
    for (const name of ['fs.read', 'fs.write', 'file_delete', 'web_search', 'note_add', 'plain']) {
      expect(await outcome(c.client, name), name).toBe('ran');
    }
    expect(asked).toEqual([
      expect.stringMatching(/^fs\.write: .*destructive/),
      expect.stringMatching(/^file_delete: .*destructive/),
      expect.stringMatching(/^web_search: .*open world/),
      // Neither destructive nor open-world, but not read-only: the default action (ask).
      expect.stringMatching(/^note_add: /),
      // No annotations: the spec's defaults make it destructive.
      expect.stringMatching(/^plain: .*destructive/),
    ]);
  });

  it('untrusted server (the default): every tool asks, read-only ones too', async () => {
    const asked: string[] = [];
    await using c = await connect({
      approver: async (request) => {
        asked.push(request.tool.name);
        return 'deny';
      },
    });
    expect(await outcome(c.client, 'fs.read')).toBe(DENIED);
    expect(await outcome(c.client, 'fs.write')).toBe(DENIED);
    expect(asked).toEqual(['fs.read', 'fs.write']);
    expect(c.ran).toEqual([]);
    expect(c.wireCalls()).toEqual([]);
  });

  it('untrusted server: a rule can still allow a tool', async () => {
    await using c = await connect({
      rules: [{ server: 'approval-fixture', tool: 'fs.read', action: 'allow' }],
    });
    expect(await outcome(c.client, 'fs.read')).toBe('ran');
  });
});

describe('approval: the approver', () => {
  it('receives the tool as listed and the exact arguments', async () => {
    const requests: ApprovalRequest[] = [];
    await using c = await connect({
      approver: async (request) => {
        requests.push(request);
        return 'once';
      },
    });
    const args = { label: 'no path: writes nothing', nested: { list: [1, 'two', null], flag: false } };
    await c.client.callTool('write_marker', args);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.arguments).toEqual(args);
    expect(request!.server).toMatchObject({ name: 'approval-fixture', version: '1.0.0' });
    expect(request!.tool).toMatchObject({
      name: 'write_marker',
      title: 'Write marker file',
      description: 'The write_marker tool',
      annotations: { title: 'Write a marker', readOnlyHint: false, destructiveHint: true },
    });
    expect(request!.reason).toMatch(/not trusted/);
    expect(c.wireCalls()).toEqual([expect.objectContaining({ name: 'write_marker', arguments: args })]);
  });

  it('"always" is remembered for that tool; "once" is not', async () => {
    const asked: string[] = [];
    await using c = await connect({
      approver: async (request) => {
        asked.push(request.tool.name);
        return request.tool.name === 'fs.write' ? 'always' : 'once';
      },
    });
    for (let i = 0; i < 3; i++) {
      expect(await outcome(c.client, 'fs.write', { i })).toBe('ran');
      expect(await outcome(c.client, 'file_delete', { i })).toBe('ran');
    }
    expect(asked).toEqual(['fs.write', 'file_delete', 'file_delete', 'file_delete']);
    expect(c.audit.filter((r) => r.tool === 'fs.write').map((r) => r.decision)).toEqual([
      'asked-always',
      'remembered',
      'remembered',
    ]);
  });

  it('a denial throws TOOL_CALL_DENIED and nothing reaches the server', async () => {
    await using c = await connect({ approver: async () => 'deny' });
    const error = await c.client.callTool('file_delete', { path: 'important' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: 'TOOL_CALL_DENIED',
      details: { tool: 'file_delete', server: 'approval-fixture' },
    });
    expect((error as Error).message).toMatch(/approver said no/);
    expect(c.ran).toEqual([]);
    expect(c.wireCalls()).toEqual([]);
  });

  it('without an approver, "ask" is a denial that says to configure one', async () => {
    await using c = await connect({ trustAnnotations: true });
    const error = await c.client.callTool('fs.write').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DENIED });
    expect((error as Error).message).toMatch(/no approver is configured/);
    expect(await outcome(c.client, 'fs.read')).toBe('ran');
    expect(c.wireCalls().map((p) => p.name)).toEqual(['fs.read']);
  });

  it('an approver that throws denies the call', async () => {
    await using c = await connect({
      approver: () => Promise.reject(new Error('window closed')),
    });
    const error = await c.client.callTool('fs.write').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DENIED });
    expect((error as Error).message).toMatch(/window closed/);
    expect(c.ran).toEqual([]);
  });
});

describe('client audit log', () => {
  it('one record per call: decision, digest of the arguments (never the arguments), duration, outcome', async () => {
    await using c = await connect({
      rules: [
        { tool: 'fs.read', action: 'allow' },
        { tool: 'fs.write', action: 'deny' },
      ],
      approver: async () => 'once',
    });
    const secret = { token: 'sk-very-secret', b: 1 };
    await c.client.callTool('fs.read', secret);
    await c.client.callTool('fs.write', secret).catch(() => undefined);
    await c.client.callTool('note_add', {});
    await c.client.callTool('nope', {}).catch(() => undefined);
    const digest = await argumentsDigest({ b: 1, token: 'sk-very-secret' });
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(c.audit).toEqual([
      expect.objectContaining({
        server: 'approval-fixture',
        tool: 'fs.read',
        decision: 'allowed',
        argumentsDigest: digest,
        outcome: 'ok',
        durationMs: expect.any(Number) as number,
      }),
      expect.objectContaining({ tool: 'fs.write', decision: 'denied', argumentsDigest: digest }),
      expect.objectContaining({ tool: 'note_add', decision: 'asked-once', outcome: 'ok' }),
      expect.objectContaining({
        tool: 'nope',
        decision: 'asked-once',
        outcome: expect.any(String) as string,
      }),
    ]);
    expect(c.audit[1]).not.toHaveProperty('outcome');
    expect(c.audit[1]).not.toHaveProperty('durationMs');
    expect(Date.parse(c.audit[0]!.time)).not.toBeNaN();
    expect(JSON.stringify(c.audit)).not.toContain('sk-very-secret');
  });

  it('without an approval policy, calls run as before and are still audited', async () => {
    await using c = await connect();
    expect(await outcome(c.client, 'file_delete')).toBe('ran');
    expect(c.audit).toEqual([
      expect.objectContaining({ tool: 'file_delete', decision: 'allowed', outcome: 'ok' }),
    ]);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[{"c":2,"d":1}]}');
  });

  it.each([
    {},
    { text: 'hello' },
    { b: 1, a: 2 },
    { a: { d: [1, { z: 1, y: 2 }], c: null }, b: 'x' },
    { list: [{ b: 1, a: 1 }, 'é', 1.5, true] },
  ])(
    "the gateway's digest of %j (synchronous, node:crypto) is the client's argumentsDigest",
    async (args) => {
      expect(digestOfText(canonicalJson(args))).toBe(await argumentsDigest(args));
    },
  );
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('toolwire call asks before a destructive tool', () => {
  const SERVE = ['--', process.execPath, BIN, 'serve', 'test/fixtures/approval-server.mjs'];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwire-approval-'));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('with no terminal to ask on, refuses (exit 5), runs nothing, and says to pass --yes', async () => {
    const marker = join(dir, 'refused');
    const result = await run(['call', '--tool', 'write_marker', `path=${marker}`, ...SERVE]);
    expect(result.code).toBe(ExitCode.Denied);
    expect(result.stderr).toMatch(/tool write_marker was not run: .*no terminal/);
    expect(result.stderr).toContain('--yes');
    expect(result.stdout).toBe('');
    expect(existsSync(marker)).toBe(false);
  });

  it('with --yes, runs it', async () => {
    const marker = join(dir, 'ran');
    const result = await run(['call', '--tool', 'write_marker', '--yes', `path=${marker}`, ...SERVE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('write_marker ran');
    expect(existsSync(marker)).toBe(true);
  });

  it('read-only and unannotated tools run without asking (the CLI trusts the server it runs)', async () => {
    expect((await run(['call', '--tool', 'fs.read', ...SERVE])).code).toBe(0);
    expect((await run(['call', '--tool', 'plain', ...SERVE])).code).toBe(0);
  });

  it('on a terminal, shows the tool, its annotations and the exact arguments, and asks', async () => {
    const ask = async (typed: string) => {
      const terminal = fakeTerminal();
      const { approver } = terminalApprover(terminal.input, terminal.output);
      const answer = approver({
        server: { name: 'srv', version: '2.0.0' },
        tool: {
          name: 'file_delete',
          title: 'Delete a file',
          inputSchema: { type: 'object' },
          annotations: { destructiveHint: true },
        },
        arguments: { path: 'a.txt', force: true },
        reason: 'the tool may be destructive (destructiveHint)',
      });
      const shown = terminal.screen;
      await terminal.type('Run it?', typed);
      return { answer: await answer, shown: shown.text };
    };
    const yes = await ask('y');
    expect(yes.answer).toBe('once');
    expect(yes.shown).toContain('file_delete (Delete a file)');
    expect(yes.shown).toContain('{"destructiveHint":true}');
    expect(yes.shown).toContain('"path": "a.txt",\n      "force": true');
    expect(yes.shown).toMatch(/Run it\?/);
    expect((await ask('')).answer).toBe('deny');
  });

  it('documents exit code 5 and --yes in its help', async () => {
    const help = await run(['call', '--help']);
    expect(help.stdout).toMatch(/5 {2}denied/);
    expect(help.stdout).toMatch(/--yes/);
  });
});
