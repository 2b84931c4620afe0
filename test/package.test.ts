// The package as npm ships it: what `npm pack` puts in the tarball, and a dist/ whose names read like the
// sources. The build drops comments but mangles no name (tsdown.config.ts): the mangler would also rename
// private members, and a stack trace from dist/ would show `#e` where the source says `#dispatch`.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist');

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter(keep);
}

/** Every private name (`#name`) written in `file`, read by TypeScript's parser (not regex-literal text). */
function privateNames(file: string): Set<string> {
  const kind = file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, kind);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPrivateIdentifier(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

function union(sets: Iterable<Set<string>>): Set<string> {
  const all = new Set<string>();
  for (const set of sets) for (const name of set) all.add(name);
  return all;
}

const sourceNames = union(
  filesUnder(path.join(ROOT, 'src'), (file) => file.endsWith('.ts') && !file.endsWith('.test.ts')).map(
    privateNames,
  ),
);

describe('dist/ keeps the names of the sources', () => {
  it('has no private member the sources do not declare (a mangled #e, #t …)', () => {
    expect(sourceNames.size).toBeGreaterThan(50); // the sources use private members throughout
    const foreign: string[] = [];
    // dist/console is the web console's bundle, minified on purpose (bytes a browser downloads).
    const bundle = path.join(DIST, 'console') + path.sep;
    const distFiles = filesUnder(DIST, (file) => file.endsWith('.js') && !file.startsWith(bundle));
    expect(distFiles.length).toBeGreaterThan(0);
    for (const file of distFiles) {
      for (const name of privateNames(file))
        if (!sourceNames.has(name)) foreign.push(`${path.relative(ROOT, file)}: ${name}`);
    }
    expect(foreign).toEqual([]);
  });

  it('shows the source private method names in the stack of an error thrown from dist/', async () => {
    // A real process importing dist/ (in-process imports of the package resolve to src/ in the tests):
    // a client asks an in-memory server for a tool it does not have, and prints the error's stack.
    const url = (file: string) => pathToFileURL(path.join(DIST, file)).href;
    const script = `
      Error.stackTraceLimit = Infinity;
      const { Server } = await import(${JSON.stringify(url('server.js'))});
      const { Client } = await import(${JSON.stringify(url('client.js'))});
      const { createLinkedPair } = await import(${JSON.stringify(url('in-memory.js'))});
      const server = new Server({ name: 'stack', version: '1.0.0' });
      const [serverSide, clientSide] = createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'stack', version: '1.0.0' });
      await client.connect(clientSide);
      try {
        await client.callTool('no-such-tool', {});
        console.log('no error');
      } catch (error) {
        console.log(error.stack);
      }
      await client.close();`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const frames = stdout.split('\n').filter((line) => /^\s+at .*\/dist\//.test(line));
    expect(frames.length, stdout).toBeGreaterThan(0);
    const named = frames.flatMap((line) => [...line.matchAll(/#[A-Za-z_$][\w$]*/g)].map((match) => match[0]));
    expect(named.length, `no private method among the frames:\n${stdout}`).toBeGreaterThan(0);
    expect(named.filter((name) => !sourceNames.has(name))).toEqual([]);
  });
});

interface PackEntry {
  files: { path: string }[];
}

describe('npm pack', () => {
  it('ships dist/ and bin/ with every export, self-contained source maps, no declaration maps', async () => {
    const { stdout } = await run(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel', 'error'],
      {
        cwd: ROOT,
        shell: process.platform === 'win32',
      },
    );
    const [entry] = JSON.parse(stdout) as PackEntry[];
    const files = new Set(entry!.files.map((file) => file.path));
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>;
      bin: Record<string, string>;
    };
    const wanted = [
      'package.json',
      'README.md',
      'LICENSE',
      // Editors complete a gateway configuration that names it in `$schema`.
      'gateway-config.schema.json',
      ...Object.values(manifest.exports).flatMap((targets) => Object.values(targets)),
      ...Object.values(manifest.bin),
    ].map((file) => path.posix.normalize(file));
    expect(wanted.filter((file) => !files.has(file))).toEqual([]);
    const outside = [...files].filter(
      (file) =>
        !/^(dist|bin)\//.test(file) &&
        !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'gateway-config.schema.json'].includes(
          file,
        ),
    );
    expect(outside).toEqual([]);
    expect([...files].filter((file) => file.endsWith('.d.ts.map') || file === 'dist/.source-digest')).toEqual(
      [],
    );
    // Each source map carries its sources: src/ is not in the package.
    for (const file of [...files].filter((name) => name.endsWith('.js.map'))) {
      const map = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      expect(map.sourcesContent?.filter((content) => typeof content === 'string').length, file).toBe(
        map.sources.length,
      );
    }
  });
});
