// Where the benchmark (bench/run.mjs) writes its report: bench/results/<date>[-mode][-parts][-suffix].md
// and .json, never over an existing file, the markdown formatted with the repo's prettier.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The results files' path without extension: `<date>`, then `-quick`/`-full` unless a normal run, the
 * `--only` parts joined with `+`, `--suffix`; and `-2`, `-3`, … when that name is taken.
 */
export function resultsBase({ date, mode, only, suffix }) {
  const stamp = date.slice(0, 10);
  // A run of some parts only (`--only`) is named after them, so that it leaves a whole run's file alone.
  const part = only ? `-${only.split(',').join('+')}` : '';
  // `--suffix NAME` names a run apart from others of the same day and parts; an existing file is never
  // overwritten (the name takes a number).
  const name = `${stamp}${mode === 'normal' ? '' : `-${mode}`}${part}${suffix ? `-${suffix}` : ''}`;
  let base = join(here, 'results', name);
  for (let n = 2; existsSync(`${base}.md`) || existsSync(`${base}.json`); n++)
    base = join(here, 'results', `${name}-${n}`);
  return base;
}

/**
 * Writes `<base>.md` (the markdown, prettier-formatted) and `<base>.json` (`data`, indented);
 * returns the markdown as written.
 */
export async function writeResults(base, markdown, data) {
  mkdirSync(dirname(base), { recursive: true });
  // Formatted with the repo's prettier, so `npm run lint` (prettier --check .) accepts the committed file.
  const prettier = await import('prettier').catch(() => undefined);
  const formatted = prettier
    ? await prettier.format(markdown, {
        ...(await prettier.resolveConfig(`${base}.md`)),
        filepath: `${base}.md`,
      })
    : markdown;
  writeFileSync(`${base}.md`, formatted);
  writeFileSync(`${base}.json`, `${JSON.stringify(data, null, 2)}\n`);
  return formatted;
}
