// The suite's checks.json files (scripts/conformance.mjs): where a scenario's are, and what they say.
import fs from 'node:fs';
import path from 'node:path';

/** Every checks.json under `dir`, keyed by the name of the folder that holds it. */
export function findChecks(dir) {
  const found = new Map();
  const walk = (current) => {
    if (!fs.existsSync(current)) return;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'checks.json') found.set(path.relative(dir, current), full);
    }
  };
  walk(dir);
  return found;
}

/** The checks.json of `scenario`: its folder is `<prefix><scenario>-<ISO timestamp>`. */
export function checksFile(found, prefix, scenario) {
  for (const [folder, file] of found) {
    const name = folder.split(path.sep).join('/');
    if (!name.startsWith(`${prefix}${scenario}-`)) continue;
    if (/^\d/.test(name.slice(prefix.length + scenario.length + 1))) return file;
  }
  return undefined;
}

export function readChecks(file) {
  if (file === undefined) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return { error: `unreadable ${file}: ${error.message}` };
  }
}

/** The first line the client printed on stderr (the suite saves it beside checks.json). */
export function clientError(file) {
  if (file === undefined) return undefined;
  try {
    const stderr = fs.readFileSync(path.join(path.dirname(file), 'stderr.txt'), 'utf8');
    return stderr.trim().split('\n')[0] || undefined;
  } catch {
    return undefined;
  }
}

function tally(checks) {
  const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
  const problems = [];
  const skips = [];
  for (const check of checks) {
    if (check.status in count) count[check.status]++;
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      problems.push(
        `${check.status === 'WARNING' ? 'warning ' : ''}${check.id}: ${check.errorMessage ?? check.description}`,
      );
    }
    if (check.status === 'SKIPPED')
      skips.push(`skipped ${check.id}: ${check.errorMessage ?? check.description}`);
  }
  return { passed: count.SUCCESS, failed: count.FAILURE, warnings: count.WARNING, problems, skips };
}

/** A scenario's outcome from its checks: ok, skipped (nothing checked), the counts and the problems. */
export function judge(checks, extraProblems = []) {
  if (checks === undefined) return { ok: false, problems: ['no checks.json', ...extraProblems] };
  if (!Array.isArray(checks)) return { ok: false, problems: [checks.error ?? 'checks.json is not an array'] };
  const counts = tally(checks);
  const problems = [...counts.problems, ...extraProblems];
  if (problems.length === 0 && counts.passed === 0 && counts.skips.length > 0)
    return { ...counts, problems: counts.skips.slice(0, 2), ok: true, skipped: true };
  return { ...counts, problems, ok: problems.length === 0 };
}
