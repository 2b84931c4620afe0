// A reader that goes away early never crashes the command: `toolwire tools … | head -c 10` crashed with an
// unhandled EPIPE in 2 runs of 20. Here: a real shell pipeline into `head -c 10`, 20 times (in parallel
// batches, so writes race the reader's exit as on a busy machine), and a pipe closed before anything is
// written (EPIPE on every run), for output and for a failure printed with --json.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, SERVE_FIXTURE } from './_cli.js';

interface Piped {
  code: number | null;
  stderr: string;
}

/** `bash -c 'toolwire … | head -c 10'`, exiting with toolwire's own status (PIPESTATUS). */
function throughHead(args: readonly string[]): Promise<Piped> {
  const quoted = [process.execPath, BIN, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  return collect(
    spawn('bash', ['-c', `${quoted} | head -c 10 >/dev/null; exit "\${PIPESTATUS[0]}"`], { cwd: REPO }),
  );
}

/** toolwire with a stdout pipe whose reader is closed before toolwire writes anything. */
function intoClosedPipe(args: readonly string[]): Promise<Piped> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  return collect(child);
}

function collect(child: ReturnType<typeof spawn>): Promise<Piped> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const CRASH = /EPIPE|Unhandled|node:events|\n {4}at /;

describe('toolwire writing into a closed pipe', () => {
  it(
    '`tools … | head -c 10`: 20 runs, each exits 0 with nothing on stderr',
    { timeout: 120_000 },
    async () => {
      const runs: Piped[] = [];
      for (let batch = 0; batch < 4; batch++) {
        runs.push(
          ...(await Promise.all(Array.from({ length: 5 }, () => throughHead(['tools', ...SERVE_FIXTURE])))),
        );
      }
      expect(runs).toHaveLength(20);
      for (const run of runs) {
        expect(run.stderr).not.toMatch(CRASH);
        expect(run).toEqual({ code: 0, stderr: '' });
      }
    },
  );

  it('a reader gone before the first write: output dropped, exit code kept', async () => {
    const help = await intoClosedPipe(['--help']);
    expect(help).toEqual({ code: 0, stderr: '' });
    const tools = await intoClosedPipe(['tools', '--json', ...SERVE_FIXTURE]);
    expect(tools).toEqual({ code: 0, stderr: '' });
    const failed = await intoClosedPipe(['read', '--json', 'test://no-such-thing', ...SERVE_FIXTURE]);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/^toolwire: the server answered with error -32602/);
    expect(failed.stderr).not.toMatch(CRASH);
  });
});
