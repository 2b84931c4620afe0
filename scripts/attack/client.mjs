// Attacks on the client: toolwire's Client (from dist/, in a process of its own:
// fixtures/client-victim.mjs) against a hostile stdio server (fixtures/hostile-server.mjs) whose
// outputSchemas are built to hurt a validator and whose answers are built to meet them, or are 64 MiB,
// endless, flooded with notifications or sent to the wrong id. The client is the attacked process here, so
// the "bystander" is its own event loop: the longest it was blocked during a call (monitorEventLoopDelay)
// is what any other session of that client would have waited. A client still busy after 10 s is killed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { EVIL_PATTERNS } from './fixtures/evil-patterns.mjs';
import { ROOT } from './lib/target.mjs';
import { rssKb } from '../../bench/load.mjs';

const VICTIM = path.join(ROOT, 'scripts', 'attack', 'fixtures', 'client-victim.mjs');
const HANG_MS = 10_000;

const mismatch = ({ result, error }) =>
  error?.code === 'OUTPUT_SCHEMA_MISMATCH'
    ? undefined
    : `expected OUTPUT_SCHEMA_MISMATCH, got ${error?.code ?? JSON.stringify(result)?.slice(0, 100)}`;
const resultText =
  (text) =>
  ({ result, error }) =>
    result?.text === text
      ? undefined
      : `expected "${text}", got ${error ? `${error.code} ${error.message}` : JSON.stringify(result)}`;
const errorCode =
  (code) =>
  ({ result, error }) =>
    error?.code === code
      ? undefined
      : `expected ${code}, got ${error ? `${error.code} ${error.message}` : JSON.stringify(result)?.slice(0, 100)}`;
const answered = ({ result, error }) => (result || error ? undefined : 'no answer');

const CALLS = [
  ...EVIL_PATTERNS.map((pattern, i) => ({
    tool: `pattern_${i}`,
    what: `outputSchema pattern ${pattern}`,
    expect: mismatch,
  })),
  { tool: 'pattern_keys', what: 'patternProperties and propertyNames', expect: mismatch },
  {
    tool: 'unique',
    what: 'uniqueItems over 50,000 objects',
    expect: ({ result, error }) =>
      result?.structuredKeys === 1 ? undefined : `no result: ${error?.code} ${error?.message}`,
  },
  { tool: 'deep_schema', what: 'an outputSchema nested 100,000 deep', expect: answered, args: ['--deep'] },
  // Failed at once, not at its timeout: the line's start names the request it answers.
  {
    tool: 'huge',
    what: 'a 64 MiB answer (over the 4 MiB message cap)',
    expect: errorCode('MESSAGE_TOO_LARGE'),
  },
  {
    tool: 'endless',
    what: '32 MiB without a newline, then the answer',
    expect: resultText('after the endless line'),
  },
  {
    tool: 'flood',
    what: '100,000 log notifications before the answer',
    expect: resultText('after the flood'),
  },
  {
    tool: 'wrong_id',
    what: 'answers to ids nobody sent, and one id answered twice',
    expect: resultText('right id'),
  },
];

/** Runs the victim for one call; resolves its report (or { hung }) and its peak RSS in MB. */
function victim(spec) {
  return new Promise((resolve) => {
    const args = [VICTIM, spec.tool, String(spec.timeout ?? 8000), ...(spec.args ?? [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let peak = 0;
    const sample = setInterval(() => {
      try {
        const rss = rssKb(child.pid) / 1024;
        if (rss > peak) peak = rss;
      } catch {
        // gone
      }
    }, 25);
    const kill = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', () => {
      clearInterval(sample);
      clearTimeout(kill);
      let report;
      try {
        report = JSON.parse(out);
      } catch {
        report = { hung: true };
      }
      resolve({ ...report, peakRssMb: peak });
    });
  });
}

export default [
  {
    name: 'hostile-server',
    title:
      'toolwire Client vs a hostile server: validator-bait outputSchemas, 64 MiB and endless answers, floods, wrong ids',
    target: false,
    budgetMs: 240_000,
    async run(ctx) {
      let worst = { blockedMs: 0 };
      let peakRss = 0;
      for (let round = 0; round < (ctx.quick ? 1 : 2); round++) {
        for (const spec of CALLS) {
          ctx.tries++;
          const report = await victim(spec);
          peakRss = Math.max(peakRss, report.peakRssMb);
          if (report.hung) {
            ctx.fail(`${spec.what}: the client was still busy after ${HANG_MS / 1000} s (killed)`);
            worst = { blockedMs: Math.max(worst.blockedMs, HANG_MS), what: spec.what };
            continue;
          }
          const problem = spec.expect(report);
          if (problem) ctx.fail(`${spec.what}: ${problem}`);
          if (report.blockedMs > worst.blockedMs) worst = { blockedMs: report.blockedMs, what: spec.what };
        }
      }
      ctx.delayMs = worst.blockedMs;
      ctx.peakRssMb = peakRss;
      ctx.note(
        `the client's event loop was blocked ${worst.blockedMs.toFixed(0)} ms at most, by: ${worst.what}`,
      );
    },
  },
];
