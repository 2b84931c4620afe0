// Lists the import circles among the TypeScript modules of a folder (default src/): the strongly connected
// components of the graph of relative imports, type-only imports included (a circle of types is still one
// for a reader). Test files are left out. Exits 1 when there is any.
//
//   node scripts/import-circles.mjs [folder]
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');

/** The .ts files under `folder`, tests left out. */
function sources(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const files = new Set(sources(root));
/** Each file's relative imports that are files of the folder. */
const graph = new Map();
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
    .filter((target) => files.has(target));
  graph.set(file, targets);
}

// Tarjan's strongly connected components, iteratively (no recursion depth to worry about).
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
let next = 0;
for (const start of files) {
  if (index.has(start)) continue;
  const work = [{ node: start, edge: 0 }];
  index.set(start, next);
  low.set(start, next++);
  stack.push(start);
  onStack.add(start);
  while (work.length > 0) {
    const frame = work[work.length - 1];
    const targets = graph.get(frame.node);
    if (frame.edge < targets.length) {
      const target = targets[frame.edge++];
      if (!index.has(target)) {
        index.set(target, next);
        low.set(target, next++);
        stack.push(target);
        onStack.add(target);
        work.push({ node: target, edge: 0 });
      } else if (onStack.has(target)) {
        low.set(frame.node, Math.min(low.get(frame.node), index.get(target)));
      }
      continue;
    }
    work.pop();
    const parent = work[work.length - 1];
    if (parent) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
    if (low.get(frame.node) !== index.get(frame.node)) continue;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== frame.node);
    if (component.length > 1 || graph.get(frame.node).includes(frame.node)) circles.push(component);
  }
}

for (const circle of circles) {
  console.log(`import circle: ${circle.map((file) => relative(process.cwd(), file)).join(' ↔ ')}`);
}
console.log(
  `${files.size} modules under ${relative(process.cwd(), root) || '.'}, ${circles.length} import circles`,
);
process.exitCode = circles.length > 0 ? 1 : 0;
