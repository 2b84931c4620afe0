// `toolwire call` on tools that run as tasks (test/fixtures/tasks-server.mjs, served by the CLI over
// stdio): each status of the task on stderr, the result on stdout, in both forms of tasks.
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from './_cli.js';

const SERVE_TASKS = ['--', process.execPath, BIN, 'serve', 'test/fixtures/tasks-server.mjs'];
const STATUS = /^task [0-9a-f-]{36}: (working|input_required|completed|failed|cancelled)( — .*)?$/;

/** The statuses the command printed on stderr, in order. */
function statuses(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => line.startsWith('task '));
  for (const line of lines) expect(line).toMatch(STATUS);
  return lines.map((line) => STATUS.exec(line)![1]!);
}

describe('toolwire call, tasks', () => {
  it('runs a tool that requires a task (2025-11-25) as one, printing each status on stderr', async () => {
    const run = await runCli([
      'call',
      '--tool',
      'must_task',
      '--protocol-version',
      '2025-11-25',
      ...SERVE_TASKS,
    ]);
    expect(run).toMatchObject({ code: 0, stdout: 'done\n' });
    expect(statuses(run.stderr)).toEqual(['working', 'completed']);
  });

  for (const version of ['2025-11-25', '2026-07-28']) {
    it(`calls a tool as a task with --task (${version})`, async () => {
      const run = await runCli([
        'call',
        '--tool',
        'sleepy',
        'ms=300',
        '--task',
        '--protocol-version',
        version,
        ...SERVE_TASKS,
      ]);
      expect(run).toMatchObject({ code: 0, stdout: 'slept 300 ms\n' });
      const seen = statuses(run.stderr);
      expect(seen[0]).toBe('working');
      expect(seen.at(-1)).toBe('completed');
    });
  }

  it('exits 1 for a task that ends with a tool error, its message in the status line', async () => {
    const run = await runCli([
      'call',
      '--tool',
      'bad_day',
      '--task',
      '--protocol-version',
      '2025-11-25',
      ...SERVE_TASKS,
    ]);
    expect(run).toMatchObject({ code: 1, stdout: 'it went wrong\n' });
    expect(run.stderr).toMatch(/: failed — it went wrong\n/);
  });
});
