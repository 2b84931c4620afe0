// The demo server of `toolwire serve`, driven in-process over the in-memory pair against a temporary
// workspace: listing, reading, searching (progress, cancellation), writing, and every way out of the root.
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoServer } from '../src/cli/demo/create-demo-server.js';
import { Sandbox } from '../src/cli/demo/sandbox.js';
import { compilePattern, searchFiles } from '../src/cli/demo/search-files.js';
import { crc32, tinyPng } from '../src/cli/demo/tiny-png.js';
import { Client } from '../src/client/index.js';
import {
  LocalErrorCode,
  ToolwireError,
  type CallToolResult,
  type JsonObject,
} from '../src/protocol/index.js';
import type { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const SECRET = 'TOP SECRET: must never be read through the demo';
const MANY = 150;
const HELLO = 'hello world\nsecond line with a needle\n';

let base: string;
let root: string;
let outside: string;
let server: Server;
let client: Client;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'toolwire-demo-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'docs'), { recursive: true });
  await mkdir(join(root, 'many'));
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), SECRET);
  await writeFile(join(root, 'hello.txt'), HELLO);
  await writeFile(join(root, 'docs', 'a.md'), '# A\n\nAnother Needle here\n');
  await writeFile(join(root, 'pic.png'), tinyPng());
  await writeFile(join(root, 'blob.bin'), Buffer.from([1, 2, 0, 3, 4]));
  for (let i = 0; i < MANY; i++) {
    await writeFile(
      join(root, 'many', `f${String(i).padStart(3, '0')}.txt`),
      i % 10 === 0 ? 'needle\n' : 'hay\n',
    );
  }
  await symlink(outside, join(root, 'escape')); // a directory outside
  await symlink(join(outside, 'secret.txt'), join(root, 'secret-link.txt')); // a file outside
  await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling')); // dangling, pointing outside
  await symlink('hello.txt', join(root, 'inner-link.txt')); // inside: allowed

  server = createDemoServer({ root });
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  client = new Client({ name: 'demo-test', version: '1.0.0' });
  await client.connect(clientEnd);
  await client.listTools(); // caches outputSchemas, so results are checked against them
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

const call = (name: string, args: JsonObject = {}) => client.callTool(name, args);

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

async function expectRefused(name: string, args: JsonObject): Promise<string> {
  const result = await call(name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} should be refused`).toBe(true);
  const message = textOf(result);
  expect(message).not.toContain(SECRET);
  return message;
}

describe('demo server', () => {
  it('lists its five tools with titles, schemas and annotations', async () => {
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_files',
      'read_file',
      'search_files',
      'write_file',
      'workspace_info',
    ]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description?.length).toBeGreaterThan(40);
    }
    const write = tools.find((t) => t.name === 'write_file');
    expect(write?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tools.find((t) => t.name === 'list_files')?.outputSchema).toBeDefined();
    expect(tools.find((t) => t.name === 'search_files')?.outputSchema).toBeDefined();
  });

  it('lists a directory with structured entries and resource links to files', async () => {
    const result = await call('list_files');
    expect(result.isError).toBeUndefined();
    const { entries, truncated } = result.structuredContent as {
      entries: Array<{ path: string; type: string; size: number }>;
      truncated: boolean;
    };
    expect(truncated).toBe(false);
    expect(entries).toContainEqual({ path: 'hello.txt', type: 'file', size: HELLO.length });
    expect(entries).toContainEqual({ path: 'docs', type: 'directory', size: 0 });
    expect(entries).toContainEqual({ path: 'inner-link.txt', type: 'file', size: HELLO.length });
    // links whose target is outside the root (or missing) are not listed
    const names = entries.map((e) => e.path);
    expect(names).not.toContain('escape');
    expect(names).not.toContain('secret-link.txt');
    expect(names).not.toContain('dangling');
    expect(names).not.toContain('docs/a.md');
    const links = result.content.filter((b) => b.type === 'resource_link');
    expect(links).toContainEqual(
      expect.objectContaining({ name: 'hello.txt', uri: pathToFileURL(join(root, 'hello.txt')).href }),
    );
  });

  it('lists recursively, and a subdirectory', async () => {
    const all = (await call('list_files', { recursive: true })).structuredContent as {
      entries: Array<{ path: string }>;
    };
    expect(all.entries.map((e) => e.path)).toContain('docs/a.md');
    expect(all.entries.map((e) => e.path)).toContain('many/f149.txt');
    const docs = (await call('list_files', { path: 'docs' })).structuredContent as {
      entries: Array<{ path: string }>;
    };
    expect(docs.entries.map((e) => e.path)).toEqual(['docs/a.md']);
    expect(textOf(await call('list_files', { path: 'hello.txt' }))).toMatch(/not a directory/);
  });

  it('reads a text file, an image, and a binary file', async () => {
    expect(textOf(await call('read_file', { path: 'hello.txt' }))).toBe(HELLO);
    expect(textOf(await call('read_file', { path: join(root, 'docs', 'a.md') }))).toContain('Needle');

    const picture = await call('read_file', { path: 'pic.png' });
    expect(picture.content).toHaveLength(1);
    const block = picture.content[0]!;
    expect(block.type).toBe('image');
    if (block.type !== 'image') return;
    expect(block.mimeType).toBe('image/png');
    expect(Buffer.from(block.data, 'base64')).toEqual(Buffer.from(tinyPng()));

    const binary = await call('read_file', { path: 'blob.bin' });
    expect(binary.content.map((b) => b.type)).toEqual(['text', 'resource']);
  });

  it('refuses directories, missing files and files over maxBytes', async () => {
    expect(await expectRefused('read_file', { path: 'docs' })).toMatch(/is a directory/);
    expect(await expectRefused('read_file', { path: 'missing.txt' })).toMatch(/does not exist/);
    expect(await expectRefused('read_file', { path: 'hello.txt', maxBytes: 5 })).toMatch(
      /over the 5-byte limit/,
    );
  });

  it('searches with a substring and a /regex/, reporting increasing progress', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool(
      'search_files',
      { pattern: 'needle' },
      { onProgress: (p) => progress.push({ progress: p.progress, total: p.total }) },
    );
    const { matches, filesScanned } = result.structuredContent as {
      matches: Array<{ path: string; line: number; text: string }>;
      filesScanned: number;
    };
    expect(matches).toContainEqual({ path: 'hello.txt', line: 2, text: 'second line with a needle' });
    expect(matches.filter((m) => m.path.startsWith('many/'))).toHaveLength(MANY / 10);
    expect(matches.map((m) => m.path)).not.toContain('docs/a.md'); // case-sensitive
    expect(progress.length).toBeGreaterThan(3);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    }
    expect(progress.at(-1)).toEqual({ progress: filesScanned, total: filesScanned });

    const regex = (await call('search_files', { pattern: '/another needle/i', path: 'docs' }))
      .structuredContent as { matches: Array<{ path: string; line: number }> };
    expect(regex.matches).toEqual([{ path: 'docs/a.md', line: 3, text: 'Another Needle here' }]);
    expect(await expectRefused('search_files', { pattern: '/(/' })).toMatch(/Invalid regular expression/);
  });

  it('stops searching when the call is cancelled', async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const call = client.callTool(
      'search_files',
      { pattern: 'needle' },
      {
        signal: controller.signal,
        onProgress: (p) => {
          progress.push(p.progress);
          controller.abort();
        },
      },
    );
    await expect(call).rejects.toSatisfy(
      (error) => error instanceof ToolwireError && error.code === LocalErrorCode.RequestCancelled,
    );
    expect(progress.length).toBeGreaterThanOrEqual(1);

    // The search itself honours the signal: it stops early and says so.
    const sandbox = new Sandbox(root);
    const abort = new AbortController();
    let reports = 0;
    const outcome = await searchFiles(sandbox, await sandbox.realRoot(), await compilePattern('needle'), {
      signal: abort.signal,
      onProgress: () => {
        reports++;
        abort.abort();
      },
    });
    expect(reports).toBe(1);
    expect(outcome.cancelled).toBe(true);
    expect(outcome.scanned).toBeLessThan(outcome.total);
    expect(outcome.total).toBeGreaterThanOrEqual(MANY);
  });

  it('writes a new file, refuses to overwrite it unless asked', async () => {
    const first = await call('write_file', { path: 'out/new.txt', content: 'one' });
    expect(first.isError).toBeUndefined();
    expect(await readFile(join(root, 'out', 'new.txt'), 'utf8')).toBe('one');

    expect(await expectRefused('write_file', { path: 'out/new.txt', content: 'two' })).toMatch(/overwrite/);
    expect(await readFile(join(root, 'out', 'new.txt'), 'utf8')).toBe('one');

    const replaced = await call('write_file', { path: 'out/new.txt', content: 'two', overwrite: true });
    expect(replaced.isError).toBeUndefined();
    expect(await readFile(join(root, 'out', 'new.txt'), 'utf8')).toBe('two');

    expect(await expectRefused('write_file', { path: 'docs', content: 'x', overwrite: true })).toMatch(
      /is a directory/,
    );
  });

  it('describes the workspace with text and a valid PNG', async () => {
    const result = await call('workspace_info');
    expect(result.content.map((b) => b.type)).toEqual(['text', 'image']);
    expect(textOf(result)).toContain(root);
    const block = result.content[1]!;
    if (block.type !== 'image') throw new Error('expected an image');
    const png = Buffer.from(block.data, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([16, 16]);
    // each chunk's CRC is right, and the pixels inflate to 16 rows of (1 + 16 * 4) bytes
    let offset = 8;
    const idat: Buffer[] = [];
    while (offset < png.length) {
      const length = png.readUInt32BE(offset);
      const typeAndData = png.subarray(offset + 4, offset + 8 + length);
      expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(typeAndData));
      if (typeAndData.subarray(0, 4).toString('latin1') === 'IDAT') idat.push(typeAndData.subarray(4));
      offset += 12 + length;
    }
    expect(zlib.inflateSync(Buffer.concat(idat))).toHaveLength(16 * (1 + 16 * 4));
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
});

describe('demo server sandbox', () => {
  it('refuses ../ paths, and leaves the outside untouched', async () => {
    expect(await expectRefused('read_file', { path: '../outside/secret.txt' })).toMatch(
      /outside the workspace/,
    );
    expect(await expectRefused('read_file', { path: 'docs/../../outside/secret.txt' })).toMatch(/outside/);
    expect(await expectRefused('list_files', { path: '..' })).toMatch(/outside/);
    expect(await expectRefused('search_files', { pattern: 'SECRET', path: '../outside' })).toMatch(/outside/);
    expect(await expectRefused('write_file', { path: '../outside/new.txt', content: 'x' })).toMatch(
      /outside/,
    );
    await expect(readFile(join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses absolute paths outside the root, accepts those inside', async () => {
    expect(await expectRefused('read_file', { path: join(outside, 'secret.txt') })).toMatch(/outside/);
    expect(await expectRefused('read_file', { path: '/etc/hostname' })).toMatch(/outside/);
    expect(await expectRefused('write_file', { path: join(outside, 'abs.txt'), content: 'x' })).toMatch(
      /outside/,
    );
    await expect(readFile(join(outside, 'abs.txt'))).rejects.toThrow(/ENOENT/);
    expect(textOf(await call('read_file', { path: join(root, 'hello.txt') }))).toContain('hello world');
  });

  it('refuses symbolic links that lead outside, follows those that stay inside', async () => {
    expect(await expectRefused('read_file', { path: 'secret-link.txt' })).toMatch(/symbolic link/);
    expect(await expectRefused('read_file', { path: 'escape/secret.txt' })).toMatch(/symbolic link/);
    expect(await expectRefused('list_files', { path: 'escape' })).toMatch(/symbolic link/);
    expect(await expectRefused('search_files', { pattern: 'SECRET', path: 'escape' })).toMatch(
      /symbolic link/,
    );
    expect(
      await expectRefused('write_file', { path: 'secret-link.txt', content: 'pwned', overwrite: true }),
    ).toMatch(/symbolic link/);
    expect(await expectRefused('write_file', { path: 'escape/planted.txt', content: 'x' })).toMatch(
      /symbolic link/,
    );
    expect(await expectRefused('write_file', { path: 'dangling', content: 'x', overwrite: true })).toMatch(
      /symbolic link/,
    );
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    await expect(readFile(join(outside, 'planted.txt'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(outside, 'not-yet.txt'))).rejects.toThrow(/ENOENT/);

    const search = (await call('search_files', { pattern: 'SECRET' })).structuredContent as {
      matches: unknown[];
    };
    expect(search.matches).toEqual([]);
    expect(textOf(await call('read_file', { path: 'inner-link.txt' }))).toContain('hello world');
  });

  it('refuses odd paths without crashing', async () => {
    expect(await expectRefused('read_file', { path: 'a\u0000b' })).toMatch(/NUL/);
    expect(await expectRefused('write_file', { path: '.', content: 'x', overwrite: true })).toMatch(/root/);
    expect(await expectRefused('read_file', { path: 'hello.txt/child' })).toBeTruthy();
  });
});

describe('demo server resources', () => {
  it('resolves the file links of list_files through resources/read', async () => {
    const result = await call('list_files');
    const link = result.content.find((b) => b.type === 'resource_link' && b.name === 'hello.txt');
    expect(link).toBeDefined();
    const read = await client.readResource((link as { uri: string }).uri);
    expect(read.contents).toEqual([
      { uri: pathToFileURL(join(root, 'hello.txt')).href, mimeType: 'text/plain', text: HELLO },
    ]);
    const png = await client.readResource(pathToFileURL(join(root, 'pic.png')).href);
    expect(png.contents[0]).toMatchObject({
      mimeType: 'image/png',
      blob: Buffer.from(tinyPng()).toString('base64'),
    });
  });

  it('answers "not found" for files outside the root, through links, and for directories', async () => {
    for (const target of [
      join(outside, 'secret.txt'),
      join(root, 'secret-link.txt'),
      join(root, 'escape', 'secret.txt'),
      join(root, 'docs'),
      join(root, 'missing.txt'),
    ]) {
      const error = await client.readResource(pathToFileURL(target).href).catch((e: unknown) => e);
      // -32002 in the handshake era, -32602 in the stateless era (2026-07-28), which this client speaks.
      expect(error, target).toMatchObject({
        code: client.era === 'stateless' ? -32602 : -32002,
        message: 'Resource not found',
      });
      expect(JSON.stringify(error)).not.toContain(SECRET);
    }
  });
});
