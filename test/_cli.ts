// Runs the real `toolwire` command (`node bin/toolwire.mjs …`, which imports dist/cli.js: the global setup
// builds it from src/) as a child process, and collects its exit code, output and duration.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
/** The protocol fixture (tools, resources, templates, prompts; pages of 3), served by the CLI over stdio. */
export const FIXTURE = 'test/fixtures/protocol-server.mjs';
export const SERVE_FIXTURE = ['--', process.execPath, BIN, 'serve', FIXTURE];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Spawn to exit, in ms. */
  ms: number;
}

export interface CliRunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin, which then ends (default: nothing, stdin ends at once; never a TTY). */
  stdin?: string;
}

export function runCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** The one JSON object a failure prints on stdout with --json (throws when stdout is anything else). */
export function failureObject(run: CliRun): {
  code: string;
  message: string;
  details?: Record<string, unknown>;
} {
  const parsed = JSON.parse(run.stdout) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`stdout is not one JSON object: ${run.stdout}`);
  }
  const keys = Object.keys(parsed);
  if (keys.length !== 1 || keys[0] !== 'error') throw new Error(`stdout is not {"error": …}: ${run.stdout}`);
  const error = (parsed as { error: { code: string; message: string; details?: Record<string, unknown> } })
    .error;
  if (typeof error.code !== 'string' || typeof error.message !== 'string') {
    throw new Error(`error.code and error.message must be strings: ${run.stdout}`);
  }
  return error;
}
