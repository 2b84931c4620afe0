// SIGINT (Ctrl-C) or SIGTERM while `toolwire call` waits for a tool: the call is cancelled
// (notifications/cancelled), the server command is stopped even when it ignores the end of its stdin and
// SIGINT (stdin closed, then SIGTERM), and the command exits 130 or 143; a second signal exits at once.
// The signal goes to the CLI only, as `kill`, `timeout` or a supervisor sends it. Ctrl-C typed at a
// question on a terminal (raw mode: no signal, a key) does the same, and is not taken for an answer.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/cli/exit-code.js';
import { BIN, REPO, failureObject, type CliRun } from './_cli.js';

const SERVER = join(REPO, 'test/fixtures/stubborn-slow-server.mjs');

let workspace: string;
let runs = 0;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'toolwire-interrupt-'));
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

/** What the server logged (see the fixture). */
async function serverLog(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `toolwire call --tool slow` against the stubborn server; once the server saw the call, sends the
 * CLI `signals`: each after the server saw the call cancelled (the one before was taken), or with
 * `together` all at once (signals of different kinds, which the CLI takes one after the other, in either
 * order). Resolves with the run, the server's log and its pid.
 */
async function interruptedCall(
  signals: readonly NodeJS.Signals[],
  extra: readonly string[] = [],
  env: Record<string, string> = {},
  together = false,
): Promise<{ run: CliRun; log: string; serverPid: number }> {
  const log = join(workspace, `server-${++runs}.log`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, 'call', '--tool', 'slow', ...extra, '--', process.execPath, SERVER],
    { cwd: REPO, env: { ...process.env, ...env, STUBBORN_LOG: log }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end();
  await expect.poll(() => serverLog(log)).toMatch(/^call \S+$/m);
  for (const [index, signal] of signals.entries()) {
    // The next one once this one was seen (two pending signals of a kind are delivered as one).
    child.kill(signal);
    if (!together && index < signals.length - 1)
      await expect.poll(() => serverLog(log)).toMatch(/^cancelled /m);
  }
  const code = await closed;
  const text = await serverLog(log);
  const serverPid = Number(/^pid (\d+)$/m.exec(text)?.[1]);
  return { run: { code, stdout, stderr, ms: performance.now() - started }, log: text, serverPid };
}

describe('a signal mid-call', () => {
  it('SIGINT: the call is cancelled, the server stopped, exit 130', async () => {
    const { run, log, serverPid } = await interruptedCall(['SIGINT']);
    expect(run.code).toBe(ExitCode.Interrupted);
    expect(run.stderr).toMatch(/^toolwire: interrupted by SIGINT/m);
    const id = /^call (\S+)$/m.exec(log)?.[1];
    expect(log).toMatch(new RegExp(`^cancelled ${id} interrupted by SIGINT`, 'm'));
    expect(log.indexOf('cancelled')).toBeLessThan(log.indexOf('stdin ended')); // before its stdin closed
    expect(alive(serverPid)).toBe(false); // it ignores the end of its stdin: SIGTERM stopped it
  });

  it('SIGTERM: likewise, exit 143, and with --json one JSON object', async () => {
    const { run, log, serverPid } = await interruptedCall(['SIGTERM'], ['--json']);
    expect(run.code).toBe(ExitCode.Terminated);
    expect(failureObject(run)).toMatchObject({ code: 'INTERRUPTED', details: { signal: 'SIGTERM' } });
    expect(log).toMatch(/^cancelled \S+ interrupted by SIGTERM/m);
    expect(alive(serverPid)).toBe(false);
  });

  // This server ignores SIGTERM too: stopping it takes two 1 s steps (its stdin closed, then SIGTERM), then
  // SIGKILL. A second signal exits at once: the server is left running.
  it('a second signal exits at once, without waiting for the server to stop', async () => {
    // Sent together, the second comes while the CLI is only starting to stop the server, however busy the
    // machine. Which of the two it takes first is not fixed (a thread of the process may take either).
    const { run, serverPid } = await interruptedCall(
      ['SIGINT', 'SIGTERM'],
      [],
      { STUBBORN_IGNORE_TERM: '1' },
      true,
    );
    try {
      expect([ExitCode.Interrupted, ExitCode.Terminated]).toContain(run.code);
      expect(alive(serverPid)).toBe(true); // the CLI did not wait for it to stop
    } finally {
      if (alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    }
  });

  it('a second SIGINT (Ctrl-C twice) exits at once, while the first still stops the server', async () => {
    // Each step of stopping the server (its stdin closed, then SIGTERM) waits up to a minute: the second
    // SIGINT comes while the first is stopping it, however busy the machine.
    const { run, log, serverPid } = await interruptedCall(
      ['SIGINT', 'SIGINT'],
      ['--shutdown-timeout', '60000'],
      { STUBBORN_IGNORE_TERM: '1' },
    );
    try {
      expect(run.code).toBe(ExitCode.Interrupted);
      expect(alive(serverPid)).toBe(true); // the CLI did not wait for it to stop
      expect(log).not.toMatch(/^SIGTERM ignored$/m);
    } finally {
      if (alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    }
  });
});

/**
 * Runs `toolwire call --tool TOOL` against the stubborn server on a terminal (`script`), and types Ctrl-C
 * once `prompt` is on it. Resolves with the exit code, what the terminal showed, and the server's log.
 */
async function ctrlCAt(
  tool: string,
  prompt: string,
): Promise<{ code: number | null; screen: string; log: string }> {
  const log = join(workspace, `server-${++runs}.log`);
  const command = [process.execPath, BIN, 'call', '--tool', tool, '--', process.execPath, SERVER].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO,
    env: { ...process.env, STUBBORN_LOG: log },
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    await expect.poll(() => screen, { timeout: 20_000 }).toContain(prompt);
    child.stdin.write('\u0003');
    const code = await Promise.race([
      closed,
      new Promise<'hung'>((resolve) => setTimeout(resolve, 10_000, 'hung')),
    ]);
    expect(code, screen).not.toBe('hung');
    return { code: code === 'hung' ? null : code, screen, log: await serverLog(log) };
  } finally {
    child.kill('SIGKILL');
  }
}

describe.runIf(existsSync('/usr/bin/script'))('Ctrl-C at a question on the terminal', () => {
  it('at an elicitation: the call is cancelled before the question is answered, the server stopped, exit 130', async () => {
    const { code, screen, log } = await ctrlCAt('ask', '[c]ancel');
    expect(code, screen).toBe(ExitCode.Interrupted);
    expect(screen).toMatch(/^toolwire: interrupted by SIGINT/m);
    const id = /^call (\S+)$/m.exec(log)?.[1];
    expect(log).toMatch(new RegExp(`^cancelled ${id} interrupted by SIGINT`, 'm'));
    // The question's "cancel", if it is sent at all, comes after the call was cancelled.
    const answered = log.indexOf('answered');
    if (answered !== -1) expect(log.indexOf('cancelled')).toBeLessThan(answered);
    await expect.poll(() => alive(Number(/^pid (\d+)$/m.exec(log)?.[1]))).toBe(false);
  });

  it('at the approval prompt: nothing is called, not even denied, the server stopped, exit 130', async () => {
    const { code, screen, log } = await ctrlCAt('wipe', 'Run it? [y]es');
    expect(code, screen).toBe(ExitCode.Interrupted);
    expect(screen).toMatch(/^toolwire: interrupted by SIGINT/m);
    expect(screen).not.toMatch(/denied|was not run/);
    expect(log).not.toMatch(/^call /m);
    await expect.poll(() => alive(Number(/^pid (\d+)$/m.exec(log)?.[1]))).toBe(false);
  });
});
