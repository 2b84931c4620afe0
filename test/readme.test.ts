// Every TypeScript and JavaScript block of README.md compiles against src/: each ```ts / ```js block is
// written to its own module and the whole set is type-checked in one TypeScript program, with the
// package's public subpaths (`toolwire`, `toolwire/server`, …) mapped to their src/ entry points, strict and
// with `noUncheckedIndexedAccess` like the project itself. A block is a complete module: its imports and
// helpers are in it. Shell and other blocks are not checked. A block may opt out only with a first line
// `// readme: not compiled — <reason>`; a marker without a reason fails.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OPT_OUT = /^\s*\/\/\s*readme: not compiled\b\s*(?:[—:-]\s*)?(.*)$/;
const CHECKED = new Set(['ts', 'typescript', 'js', 'javascript']);

/** The package's public subpaths and the src/ entry point each is built from (package.json, tsdown.config.ts). */
const ENTRY_POINTS: Record<string, string> = {
  toolwire: 'src/index.ts',
  'toolwire/server': 'src/server/index.ts',
  'toolwire/client': 'src/client/index.ts',
  'toolwire/stdio': 'src/transports/stdio/index.ts',
  'toolwire/in-memory': 'src/transports/in-memory.ts',
  'toolwire/http': 'src/transports/http/index.ts',
  'toolwire/http-client': 'src/transports/http-client/index.ts',
  'toolwire/redis': 'src/stores/redis.ts',
  'toolwire/gateway': 'src/gateway/index.ts',
};

interface Block {
  /** 1-based README line of the block's first code line (the line after the opening fence). */
  line: number;
  language: string;
  code: string;
  optOut?: string;
}

function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '```', language = ''] = open;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !(lines[end] ?? '').trimStart().startsWith(fence)) end++;
    const body = lines
      .slice(start, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    i = end;
    if (!CHECKED.has(language)) continue;
    const block: Block = { line: start + 1, language, code: body.join('\n') };
    const marker = OPT_OUT.exec(body[0] ?? '');
    if (marker) block.optOut = (marker[1] ?? '').trim();
    blocks.push(block);
  }
  return blocks;
}

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const blocks = readmeBlocks(readme);

describe('README code blocks', () => {
  it('finds the blocks it checks (the parser is not silently skipping everything)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(blocks.some((block) => block.language === 'js')).toBe(true);
    expect(blocks.some((block) => block.language === 'ts')).toBe(true);
  });

  it('opts a block out only with a reason', () => {
    const unexplained = blocks.filter((block) => block.optOut !== undefined && block.optOut.length < 10);
    expect(unexplained.map((block) => `README.md:${block.line}`)).toEqual([]);
  });

  // A whole TypeScript program over src/: CPU-bound, ≈10 s alone, past 20 s on a 2-core machine under load.
  it(
    'type-checks every ts and js block against src/, strict, as complete modules',
    { timeout: 120_000 },
    () => {
      const dir = path.join(ROOT, 'node_modules', '.cache', 'readme-blocks', String(process.pid));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const files = new Map<string, Block>();
      try {
        for (const block of blocks) {
          if (block.optOut !== undefined) continue;
          const ext = block.language.startsWith('j') ? '.mjs' : '.mts';
          const file = path.join(dir, `readme-line-${block.line}${ext}`);
          // Every block is a module, also one without an import or export.
          writeFileSync(file, `${block.code}\nexport {};\n`);
          files.set(path.normalize(file), block);
        }
        const paths: Record<string, string[]> = {};
        for (const [specifier, entry] of Object.entries(ENTRY_POINTS))
          paths[specifier] = [path.join(ROOT, entry)];
        const options: ts.CompilerOptions = {
          target: ts.ScriptTarget.ES2023,
          lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          strict: true,
          noUncheckedIndexedAccess: true,
          noImplicitOverride: true,
          verbatimModuleSyntax: true,
          allowJs: true,
          checkJs: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          paths,
        };
        const program = ts.createProgram([...files.keys()], options);
        const errors: string[] = [];
        for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
          const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
          const block = diagnostic.file && files.get(path.normalize(diagnostic.file.fileName));
          if (diagnostic.file && block && diagnostic.start !== undefined) {
            const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
            errors.push(`README.md:${block.line + line}: TS${diagnostic.code} ${message}`);
          } else {
            // An error inside src/ or a library is a problem of the setup, not of a block: report it as is.
            const where = diagnostic.file ? path.relative(ROOT, diagnostic.file.fileName) : 'program';
            errors.push(`${where}: TS${diagnostic.code} ${message}`);
          }
        }
        expect(errors, errors.join('\n')).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
