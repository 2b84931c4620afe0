#!/usr/bin/env node
// `npm run check:pack`: the package a user gets, end to end. A fresh `git clone` of this repository's
// HEAD (committed work only) into a temporary folder, `npm ci` there (whose prepare script builds dist/),
// `npm pack`, and an install of that tarball into an empty project; then, from that project, every public
// subpath of package.json "exports" is imported, and `npx toolwire --version` and
// `npx toolwire tools -- npx toolwire serve` run. Everything happens under the temporary folder, which is
// removed at the end (kept with --keep). Slow (a clone, two installs, a build): not part of `npm test`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-check-pack-'));
const clone = path.join(work, 'toolwire');
const project = path.join(work, 'project');
const shell = process.platform === 'win32';
const started = Date.now();

function step(label, command, args, cwd) {
  const begun = Date.now();
  let output;
  try {
    output = execFileSync(command, args, { cwd, encoding: 'utf8', shell, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    console.error(`check:pack: ${label} failed\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    console.error(`check:pack: files in ${work}`);
    process.exit(1);
  }
  console.log(`check:pack: ${label} (${((Date.now() - begun) / 1000).toFixed(1)} s)`);
  return output;
}

const quiet = ['--no-audit', '--no-fund', '--loglevel', 'error'];
step('git clone', 'git', ['clone', '--quiet', ROOT, clone], work);
step('npm ci (prepare builds dist/)', 'npm', ['ci', ...quiet], clone);
const packed = JSON.parse(
  step('npm pack', 'npm', ['pack', '--json', '--pack-destination', work, ...quiet], clone),
);
const tarball = path.join(work, packed[0].filename);
console.log(`check:pack: ${packed[0].filename}: ${packed[0].entryCount} files, ${packed[0].size} bytes`);

fs.mkdirSync(project);
fs.writeFileSync(path.join(project, 'package.json'), '{ "private": true, "type": "module" }\n');
step('npm install <tarball> into an empty project', 'npm', ['install', tarball, ...quiet], project);

const { exports } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const subpaths = Object.keys(exports).map((key) => (key === '.' ? 'toolwire' : `toolwire/${key.slice(2)}`));
const imports = `for (const name of ${JSON.stringify(subpaths)}) {
  const exported = Object.keys(await import(name));
  if (exported.length === 0) throw new Error(name + ' exports nothing');
}`;
step(`import ${subpaths.join(', ')}`, process.execPath, ['--input-type=module', '-e', imports], project);

const version = step(
  'npx toolwire --version',
  'npx',
  ['--no-install', 'toolwire', '--version'],
  project,
).trim();
const expected = JSON.parse(fs.readFileSync(path.join(clone, 'package.json'), 'utf8')).version;
if (!version.includes(expected)) {
  console.error(`check:pack: toolwire --version printed ${JSON.stringify(version)}, expected ${expected}`);
  process.exit(1);
}
const tools = step(
  'npx toolwire tools -- npx toolwire serve',
  'npx',
  ['--no-install', 'toolwire', 'tools', '--', 'npx', '--no-install', 'toolwire', 'serve'],
  project,
);
if (!/\bread_file\b/.test(tools)) {
  console.error(`check:pack: toolwire tools did not list the demo's read_file:\n${tools}`);
  process.exit(1);
}

if (keep) console.log(`check:pack: kept ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
console.log(`check:pack: the packed package works (${((Date.now() - started) / 1000).toFixed(1)} s)`);
