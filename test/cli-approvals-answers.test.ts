// `toolwire approvals` against a server that answers JSON, but not the decision API's (another JSON service
// at --gateway): exit 3, a protocol error, with a message that says so — never a TypeError and exit 4 (a
// connection failure). A stub HTTP server answers each request with the body the test gives.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';

let server: Server;
let base = '';
/** What the stub answers next: a status and a body. */
let next = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(next.status, { 'content-type': 'application/json' });
    res.end(next.body);
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

  it('reads an error answered as null by its status', async () => {
    const run = await approvals(['list'], { status: 409, body: 'null' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the gateway refused: HTTP 409/);
  });
});
