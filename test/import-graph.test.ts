// The import graph of src/: no import circles, layers that import one way (house style), and a gateway and a
// CLI built on the public entry points only:
//   protocol → schema / stores → server / client → src/index.ts → transports → gateway → cli
// Every non-test .ts file under src/ is read with TypeScript's own pre-processor (`ts.preProcessFile`, which
// scans tokens, so imports in comments and strings are not counted) and each relative `import`, `export … from`
// and `import(…)` — type-only ones included: a type-only circle is still a circle for a reader — is resolved to
// the file it names. A circle is a strongly connected component of that graph (Tarjan); the failure message
// prints each circle as a → b → c → a. The web console is a separate package (console/), not part of src/; its
// imports of the package are checked at the end.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const CONSOLE = fileURLToPath(new URL('../console/src/', import.meta.url));

/**
 * The public entry points, src/-relative: the file tsdown builds each of package.json's `exports` from
 * (`"./server": { "default": "./dist/server.js" }` and tsdown's `server: 'src/server/index.ts'`). What the
 * gateway, the CLI and the console import of src/ beyond their own files is one of these: they are built
 * on the public API, as a user's code would be.
 */
function publicEntries(): Set<string> {
  const tsdown = readFileSync(path.join(ROOT, 'tsdown.config.ts'), 'utf8');
  const built = new Map<string, string>();
  for (const [, name, file] of tsdown.matchAll(/^\s*'?([\w-]+)'?: '(src\/[\w/.-]+\.ts)',$/gm)) {
    built.set(name!, file!.slice('src/'.length));
  }
  const { exports } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  const entries = new Set<string>();
  for (const [subpath, { default: file }] of Object.entries(exports)) {
    const name = /^\.\/dist\/([\w-]+)\.js$/.exec(file)?.[1];
    const source = name === undefined ? undefined : built.get(name);
    if (source === undefined)
      throw new Error(`package.json exports ${subpath} from ${file}, which tsdown does not build`);
    entries.add(source);
  }
  return entries;
}

/**
 * The public entry points and the barrels one of them re-exports whole (`export * from './protocol/index.js'`
 * in src/index.ts, the HTTP entry point's auth/index.ts): every name such a barrel exports is public under
 * the entry point's name. The CLI imports
 * the protocol's names from protocol/index.ts, not from src/index.ts: through src/index.ts, which re-exports
 * the server and the client too, its bundle evaluated them before every command (`toolwire --version`
 * ≈400 → ≈490 ms, interleaved runs on a 2-core host).
 */
function publicModules(entries: ReadonlySet<string>): Set<string> {
  const modules = new Set(entries);
  for (const entry of entries) {
    const text = readFileSync(path.join(SRC, entry), 'utf8');
    for (const [, specifier] of text.matchAll(/^export \* from '(\.[^']+)\.js';$/gm)) {
      const base = path.posix.join(path.posix.dirname(entry), specifier!);
      modules.add(existsSync(path.join(SRC, `${base}.ts`)) ? `${base}.ts` : `${base}/index.ts`);
    }
  }
  return modules;
}

const PUBLIC_ENTRIES = publicEntries();
const PUBLIC_MODULES = publicModules(PUBLIC_ENTRIES);

/** Imports by files under `layer/` of files of src/ outside it, other than the public modules and `allowed`. */
function internalImports(
  graph: Graph,
  layer: string,
  allowed: (target: string) => boolean = () => false,
): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    if (!file.startsWith(`${layer}/`)) continue;
    for (const target of imports) {
      if (!target.startsWith(`${layer}/`) && !PUBLIC_MODULES.has(target) && !allowed(target))
        found.push(`${file} → ${target}`);
    }
  }
  return found;
}

/**
 * The layers, lowest first: the top folders of src/ (and the root entry point, src/index.ts, which re-exports
 * protocol, schema, server and client, and which the gateway imports). A file imports from its own layer or
 * from a lower rank; layers that share a rank (schema and stores, server and client) do not import each other.
 */
const RANKS: ReadonlyArray<readonly string[]> = [
  ['protocol'],
  ['schema', 'stores'],
  ['server', 'client'],
  ['index.ts'],
  ['transports'],
  ['gateway'],
  ['cli'],
];

/**
 * Circles allowed while one is being broken on its own branch: a circle found in src/ passes only if every
 * file of it is listed in one entry, and an entry that matches no circle any more fails the test (whoever
 * lands the fix deletes its entry). Empty: src/ has no import circle.
 */
const KNOWN_CIRCLES: ReadonlyArray<{ readonly fixer: string; readonly files: readonly string[] }> = [];

/** src/-relative path (with /) → the src/ files it imports. */
type Graph = ReadonlyMap<string, ReadonlySet<string>>;

interface Reading {
  readonly graph: Graph;
  /** Imports that name no file of src/, or name the package itself instead of a relative path. */
  readonly strays: readonly string[];
}

/**
 * The module specifiers a file names: `import`, `import type`, `export … from`, `import(…)` in code and in types.
 * TypeScript's pre-processor (5.9) does not report `export * as name from '…'`, so a file that may hold one is
 * parsed (none does today; parsing every file would take seconds).
 */
function specifiersOf(file: string, text: string): string[] {
  const specifiers = ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => fileName);
  if (/\bexport\s+(?:type\s+)?\*\s*as\b/.test(text)) {
    for (const statement of ts.createSourceFile(file, text, ts.ScriptTarget.Latest).statements) {
      if (
        ts.isExportDeclaration(statement) &&
        statement.moduleSpecifier &&
        ts.isStringLiteral(statement.moduleSpecifier)
      ) {
        specifiers.push(statement.moduleSpecifier.text);
      }
    }
  }
  return [...new Set(specifiers)];
}

function readGraph(): Reading {
  const files = readdirSync(SRC, { recursive: true })
    .map((entry) => String(entry).split(path.sep).join('/'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .sort();
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  const strays: string[] = [];
  for (const file of files) {
    const imports = new Set<string>();
    for (const specifier of specifiersOf(file, readFileSync(path.join(SRC, file), 'utf8'))) {
      if (!specifier.startsWith('.')) {
        if (/^toolwire(?:\/|$)/.test(specifier))
          strays.push(`${file} imports the package itself: ${specifier}`);
        continue;
      }
      const base = path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
      if (target === undefined) strays.push(`${file} imports ${specifier}, which is no file of src/`);
      else imports.add(target);
    }
    graph.set(file, imports);
  }
  return { graph, strays };
}

/** The strongly connected components with a circle in them (Tarjan), each sorted. */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** One shortest circle through each file of a component (breadth first), each printed a → … → a once. */
function describeCircles(graph: Graph, component: readonly string[]): string[] {
  const inside = new Set(component);
  const printed = new Set<string>();
  for (const start of component) {
    const from = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    for (let head = 0; head < queue.length && last === undefined; head++) {
      const file = queue[head]!;
      for (const next of graph.get(file) ?? []) {
        if (next === start) {
          last = file;
          break;
        }
        if (inside.has(next) && !from.has(next)) {
          from.set(next, file);
          queue.push(next);
        }
      }
    }
    if (last === undefined) continue;
    const circle = [last];
    while (circle[0] !== start) circle.unshift(from.get(circle[0]!)!);
    // The same circle found from another of its files prints once: rotate it to start at its least file.
    const least = circle.indexOf([...circle].sort()[0]!);
    const rotated = [...circle.slice(least), ...circle.slice(0, least)];
    printed.add([...rotated, rotated[0]].join(' → '));
  }
  return [...printed].sort();
}

function within(component: readonly string[], files: readonly string[]): boolean {
  return component.every((file) => files.includes(file));
}

function layerOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file;
}

function rankOf(layer: string): number {
  return RANKS.findIndex((rank) => rank.includes(layer));
}

describe('import graph of src/', () => {
  const reading = readGraph();

  it('reads every form of import and re-export, type-only ones too, and none in comments or strings', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "import * as d from './d.js';",
      "import './e.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "export * from './h.js';",
      "export * as i from './i.js';",
      "export type * as J from './j.js';",
      "type K = import('./k.js').K;",
      "const l = await import('./l.js');",
      "// import { m } from './m.js';",
      "/** export * as n from './n.js'; */",
      'const o = "import { o } from \'./o.js\'";',
      'const p = `${a} import { p } from "./p.js"`;',
    ].join('\n');
    expect(specifiersOf('forms.ts', text).sort()).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].map((name) => `./${name}.js`),
    );
  });

  it('resolves every relative import to a file of src/', () => {
    expect(reading.graph.size).toBeGreaterThan(100);
    expect(reading.strays).toEqual([]);
  });

  it('gives no two files the same name (index.ts barrels aside), so a name finds one file', () => {
    const byName = new Map<string, string[]>();
    for (const file of reading.graph.keys()) {
      const name = path.posix.basename(file);
      if (name !== 'index.ts') byName.set(name, [...(byName.get(name) ?? []), file]);
    }
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it('finds the public entry points package.json exports, each built from a file of src/', () => {
    expect([...PUBLIC_ENTRIES].sort()).toEqual(
      [
        'gateway/index.ts',
        'index.ts',
        'transports/http-client/index.ts',
        'transports/http/index.ts',
        'transports/in-memory.ts',
        'transports/stdio/index.ts',
        'client/index.ts',
        'server/index.ts',
        'stores/redis.ts',
      ].sort(),
    );
    for (const entry of PUBLIC_ENTRIES) expect(reading.graph.has(entry), entry).toBe(true);
    // …and the barrels they re-export whole.
    expect([...PUBLIC_MODULES].filter((file) => !PUBLIC_ENTRIES.has(file)).sort()).toEqual([
      'protocol/index.ts',
      'transports/http/auth/index.ts',
    ]);
  });

  it('builds the gateway on the public entry points (and the stores it keeps its records in), no internals', () => {
    expect(internalImports(reading.graph, 'gateway', (target) => target.startsWith('stores/'))).toEqual([]);
  });

  // The CLI is the package's own user: what it needs of the library, a user's program needs too.
  it('builds the CLI on the public entry points, no internals', () => {
    expect(internalImports(reading.graph, 'cli')).toEqual([]);
  });

  it('places every file in a layer', () => {
    const unplaced = [...reading.graph.keys()].filter((file) => rankOf(layerOf(file)) < 0);
    expect(unplaced).toEqual([]);
  });

  it('imports only from the same layer or a lower one', () => {
    const upward: string[] = [];
    for (const [file, imports] of reading.graph) {
      const layer = layerOf(file);
      for (const target of imports) {
        const other = layerOf(target);
        if (other !== layer && rankOf(other) >= rankOf(layer))
          upward.push(`${file} (${layer}) → ${target} (${other})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import circle but the known ones being broken', () => {
    const unknown = circles(reading.graph)
      .filter((component) => !KNOWN_CIRCLES.some((known) => within(component, known.files)))
      .flatMap((component) => describeCircles(reading.graph, component));
    expect(unknown.length, `import circles in src/:\n${unknown.join('\n')}`).toBe(0);
  });

  it('lists no known circle that is gone (delete its entry)', () => {
    const found = circles(reading.graph);
    const gone = KNOWN_CIRCLES.filter((known) => !found.some((component) => within(component, known.files)));
    expect(gone.map((known) => known.fixer)).toEqual([]);
  });
});

/**
 * The web console (console/src, a browser bundle) imports the package as `toolwire` and `toolwire/gateway`
 * (console/tsconfig.json maps them to src/), and types only: a value would pull Node code into the page.
 * Nothing reaches into src/ by a relative path.
 */
/** Whether an `import … from` or `export … from` brings types only (`import type`, or every name `type`). */
function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    const clause = statement.exportClause;
    return (
      statement.isTypeOnly ||
      (clause !== undefined &&
        ts.isNamedExports(clause) &&
        clause.elements.every((element) => element.isTypeOnly))
    );
  }
  const clause = statement.importClause;
  if (clause === undefined) return false; // `import 'toolwire'`: run for its effects
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true; // `import type`
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

describe('imports of the web console', () => {
  it('takes only types of public entry points, and nothing of src/ by path', () => {
    const files = readdirSync(CONSOLE, { recursive: true })
      .map((entry) => String(entry).split(path.sep).join('/'))
      .filter((file) => /\.tsx?$/.test(file));
    expect(files.length).toBeGreaterThan(10);
    const strays: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(CONSOLE, file), 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
      for (const statement of source.statements) {
        if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
        const specifier = statement.moduleSpecifier;
        if (!specifier || !ts.isStringLiteral(specifier)) continue;
        const name = specifier.text;
        if (name.startsWith('.')) {
          const target = path.resolve(path.dirname(path.join(CONSOLE, file)), name);
          if (!target.startsWith(CONSOLE)) strays.push(`${file} imports ${name}, outside console/src`);
        } else if (/^toolwire(?:\/|$)/.test(name)) {
          if (!isTypeOnly(statement)) strays.push(`${file} imports values of ${name}`);
        }
      }
      // `import('…')`: a value, so none of the package; a relative one stays in console/src.
      for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        const name = match[1]!;
        if (/^toolwire(?:\/|$)/.test(name)) strays.push(`${file} imports ${name} dynamically`);
        else if (
          name.startsWith('.') &&
          !path.resolve(path.dirname(path.join(CONSOLE, file)), name).startsWith(CONSOLE)
        )
          strays.push(`${file} imports ${name}, outside console/src`);
      }
    }
    expect(strays).toEqual([]);
  });
});
