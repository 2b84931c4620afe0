// `toolwire approvals` against a server that answers JSON, but not the decision API's (another JSON service
// at --gateway): exit 3, a protocol error, with a message that says so — never a TypeError and exit 4 (a
// connection failure). A stub HTTP server answers each request with the body the test gives (by path, where it says);
// the start of an id that several pending approvals share is refused, naming them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';

let server: Server;
let base = '';
/** What the stub answers next: a status and a body (or, by the request's path, one of them). */
let next: { status: number; body: string } | ((path: string) => { status: number; body: string }) = {
  status: 200,
  body: '{}',
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const answer = typeof next === 'function' ? next(req.url ?? '/') : next;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function approvals(args: string[], answer: { status?: number; body: string }) {
  next = { status: answer.status ?? 200, body: answer.body };
  return runCli(['approvals', ...args, '--gateway', base], { env: { TOOLWIRE_TOKEN: 'token' } });
}

describe('toolwire approvals, answered JSON of another shape', () => {
  it.each([
    ['list', '{}', ['list']],
    ['list', '{"approvals":[{"id":"x"}]}', ['list']],
    ['list', 'null', ['list']],
    ['decision', 'null', ['approve', 'x']],
    ['decision', '{"approval":{},"outcome":{}}', ['deny', 'x']],
  ])('exits 3 for a %s answered %s', async (what, body, args) => {
    const run = await approvals(args as string[], { body });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`which is not the decision API's (list of approvals|${what})`));
    expect(run.stderr).not.toMatch(/TypeError|Cannot read|Cannot destructure/);
  });

  it("refuses the start of an id that several pending approvals' ids start with, naming them", async () => {
    const pending = (id: string) => ({
      id,
      upstream: 'fx',
      tool: 'add',
      exposedName: 'fx__add',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      caller: {},
      arguments: {},
      argumentsDigest: 'sha256:00',
      reason: 'ask',
    });
    const ids = ['3f0c9a52-0000-4000-8000-000000000001', '3f0c9a77-0000-4000-8000-000000000002'];
    const decisions: string[] = [];
    next = (path) => {
      if (path.startsWith('/api/approvals?') || path === '/api/approvals')
        return { status: 200, body: JSON.stringify({ approvals: ids.map(pending), total: 2 }) };
      decisions.push(path);
      return {
        status: 404,
        body: JSON.stringify({ error: { code: 'APPROVAL_NOT_FOUND', message: 'No approval 3f0c9a' } }),
      };
    };
    const run = await runCli(['approvals', 'deny', '3f0c9a', '--json', '--gateway', base], {
      env: { TOOLWIRE_TOKEN: 'token' },
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: { code: 'APPROVAL_AMBIGUOUS', details: { matches: ids } },
    });
    expect(run.stderr).toContain(`"3f0c9a" starts the ids of 2 pending approvals (${ids.join(', ')})`);
    // Nothing was decided but the id as given.
    expect(decisions).toEqual(['/api/approvals/3f0c9a/deny']);
  });

  it("exits 3 for an error of another shape: an MCP server's JSON-RPC 404 at --gateway", async () => {
    const body = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not found: /api/approvals"}}';
    const run = await approvals(['list', '--json'], { status: 404, body });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'UNEXPECTED_ANSWER' } });
    expect(run.stderr).toMatch(/which is not the decision API's error \(HTTP 404\)/);
    expect(run.stderr).toContain('Is --gateway a toolwire gateway');
    expect(run.stderr).not.toMatch(/the gateway refused/);
  });

  it('reads an error answered as null by its status', async () => {
    const run = await approvals(['list'], { status: 409, body: 'null' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the gateway refused: HTTP 409/);
  });
});
