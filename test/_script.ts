// Runs one of the repository's Node scripts (`npm run attack`'s runner, `npm run soak`) as a child process
// and parses the one JSON report it prints on stdout with --json; its stderr (progress) is kept for failures.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface ScriptRun<T> {
  code: number | null;
  report: T;
  stderr: string;
}

export function runJsonScript<T>(
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ScriptRun<T>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, ...args, '--json'],
      { cwd: REPO, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, report: JSON.parse(stdout) as T, stderr });
        } catch {
          reject(new Error(`${script} ${args.join(' ')}: ${error?.message ?? 'no JSON report'}\n${stderr}`));
        }
      },
    );
  });
}
