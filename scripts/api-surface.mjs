// The public surface of each entry point, as docs/API.md lists it: built from TypeDoc's reflection of the
// package's entry points (typedoc.json), so the list is what the declarations export — nothing else in src/
// is public. `node scripts/api-surface.mjs` rewrites docs/API.md; test/api-docs.test.ts fails when it is
// stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const API_MD = path.join(ROOT, 'docs', 'API.md');

const GROUPS = [
  ['Classes', ['Class']],
  ['Functions', ['Function']],
  ['Constants', ['Variable']],
  ['Types', ['Interface', 'TypeAlias', 'Enum', 'Namespace']],
];

/**
 * What a name stands for: a name an entry point re-exports from another (`export * from './server/index.js'`
 * in `toolwire`) is a reference in the module that does not declare it, and it is listed by the kind of
 * what it refers to (a class is a class in both modules).
 */
function declared(reflection) {
  return reflection.tryGetTargetReflectionDeep?.() ?? reflection;
}

/** docs/API.md's text for a converted TypeDoc project (`kindName(kind)` names a reflection's kind). */
export function surfaceMarkdown(project, kindName) {
  const modules = [...(project.children ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const namesOf = (name) => new Set(modules.find((m) => m.name === name)?.children?.map((c) => c.name) ?? []);
  const server = namesOf('toolwire/server');
  const client = namesOf('toolwire/client');
  const lines = [
    '# Public API',
    '',
    'The public surface of each entry point of the package, generated from the declarations',
    '(`node scripts/api-surface.mjs`; `test/api-docs.test.ts` fails when this file is stale). What is not',
    'listed here is internal and may change in any release. The API reference (`npm run docs`) documents',
    'each name.',
  ];
  for (const module of modules) {
    let members = [...(module.children ?? [])];
    lines.push('', `## \`${module.name}\``);
    if (module.name === 'toolwire') {
      lines.push('', 'Everything of `toolwire/server` and `toolwire/client`, and:');
      members = members.filter((c) => !server.has(c.name) && !client.has(c.name));
    }
    for (const [title, kinds] of GROUPS) {
      const names = members
        .filter((c) => kinds.includes(kindName(declared(c).kind)))
        .map((c) => c.name)
        .sort((a, b) => a.localeCompare(b));
      if (names.length > 0) lines.push('', `- ${title}: ${names.map((n) => `\`${n}\``).join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { Application, ReflectionKind, TSConfigReader, TypeDocReader } = await import('typedoc');
  const app = await Application.bootstrap({ options: path.join(ROOT, 'typedoc.json') }, [
    new TypeDocReader(),
    new TSConfigReader(),
  ]);
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the entry points');
  writeFileSync(
    API_MD,
    surfaceMarkdown(project, (kind) => ReflectionKind[kind]),
  );
  console.log(`wrote ${path.relative(ROOT, API_MD)}`);
}
