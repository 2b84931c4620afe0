// The API reference (`npm run docs`, TypeDoc from the TSDoc of the public entry points) builds without a
// single warning: a broken {@link}, a public signature that mentions a type the package does not export, a
// malformed tag. It runs TypeDoc's own API with typedoc.json, as `npm run docs` does, and writes the HTML
// to a scratch folder so the check never touches docs/api. docs/API.md, the list of every entry point's
// public names, must match the declarations.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, LogLevel, ReflectionKind, TSConfigReader, TypeDocReader } from 'typedoc';
import { describe, expect, it } from 'vitest';
import { API_MD, surfaceMarkdown } from '../scripts/api-surface.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('API reference', () => {
  it('builds from the TSDoc with no warning and no error', { timeout: 120_000 }, async () => {
    const out = path.join(ROOT, 'node_modules', '.cache', 'api-docs', String(process.pid));
    const messages: string[] = [];
    try {
      const app = await Application.bootstrap({ options: path.join(ROOT, 'typedoc.json'), out }, [
        new TypeDocReader(),
        new TSConfigReader(),
      ]);
      app.logger.log = (message, level) => {
        if (level >= LogLevel.Warn) messages.push(`${LogLevel[level]}: ${message}`);
      };
      const project = await app.convert();
      expect(project, messages.join('\n')).toBeDefined();
      if (!project) return;
      app.validate(project);
      await app.generateOutputs(project);
      expect(messages, messages.join('\n')).toEqual([]);
      // Every package entry point is a module of the reference, named as users import it.
      expect(project.children?.map((module) => module.name).sort()).toEqual([
        'toolwire',
        'toolwire/client',
        'toolwire/gateway',
        'toolwire/http',
        'toolwire/http-client',
        'toolwire/in-memory',
        'toolwire/redis',
        'toolwire/server',
        'toolwire/stdio',
      ]);
      // docs/API.md lists exactly what each entry point exports (regenerate: node scripts/api-surface.mjs).
      const listed = readFileSync(API_MD, 'utf8');
      // Every entry point lists names: one whose names are all re-exports (references) is not empty.
      for (const section of listed.split(/^## /m).slice(1)) {
        expect(section, `docs/API.md lists nothing for ${section.split('\n')[0]}`).toMatch(/^- \w+: `/m);
      }
      expect(listed, 'docs/API.md is stale: run node scripts/api-surface.mjs').toBe(
        surfaceMarkdown(project, (kind) => ReflectionKind[kind]),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
