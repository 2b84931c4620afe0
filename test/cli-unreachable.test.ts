// `toolwire login` and `toolwire approvals` where nothing listens: a connection failure (exit 4, as every
// command's), naming the URL tried and the cause (ECONNREFUSED), and for approvals how to point elsewhere.
// login exited 5 ("denied") saying only that fetching the protected resource metadata failed; approvals
// said "fetch failed" and no more.
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { failureObject, runCli } from './_cli.js';
import { closedPort } from './_closed-port.js';

/** A port on 127.0.0.1 that was just free: a connection to it is refused. */
let port = 0;

beforeAll(async () => {
  port = await closedPort();
});

describe('a command whose server does not answer', () => {
  it('toolwire login exits 4 (not 5, a denial), naming the URL and ECONNREFUSED', async () => {
    const url = `http://127.0.0.1:${port}/mcp`;
    const result = await runCli(['login', url]);
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toContain(`toolwire: cannot reach ${url}: fetch failed (connect ECONNREFUSED`);
    const json = await runCli(['login', '--json', url]);
    expect(json.code).toBe(ExitCode.Connection);
    expect(failureObject(json).code).toBe('CONNECTION_FAILED');
  });

  it('toolwire approvals list names the URL, ECONNREFUSED, and --gateway / $TOOLWIRE_GATEWAY', async () => {
    const result = await runCli(['approvals', 'list'], {
      env: { TOOLWIRE_TOKEN: 'token', TOOLWIRE_GATEWAY: `http://127.0.0.1:${port}` },
    });
    expect(result.code).toBe(ExitCode.Connection);
    expect(result.stderr).toContain(
      `toolwire: cannot reach the gateway at http://127.0.0.1:${port}/api: fetch failed (connect ECONNREFUSED`,
    );
    expect(result.stderr).toContain('--gateway URL (or $TOOLWIRE_GATEWAY)');
  });
});
