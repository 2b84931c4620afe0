// The server side of the skills extension (SEP-2640): skills registered with server.skill(), read back
// by the toolwire client (which checks every size, digest and the frontmatter) over stdio in both eras,
// the methods on the wire (skills/list, skills/get, resources/directory/read, the SKILL.md resource),
// and what registration refuses.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server, type SkillDefinition } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer, serverCommand } from './_setup.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/skills-server.mjs', import.meta.url));
const { LOGO, PDF_SKILL, REFUNDS_SKILL } = (await import(FIXTURE)) as {
  LOGO: Uint8Array;
  PDF_SKILL: string;
  REFUNDS_SKILL: string;
};
const SKILLS = 'io.modelcontextprotocol/skills';
const digest = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

type Json = Record<string, unknown>;

describe('skills served over stdio, read by the toolwire client', () => {
  for (const protocolVersion of ['2025-11-25', 'auto'] as const) {
    it(`lists the skills and loads one, every file verified (${protocolVersion})`, async () => {
      const client = new Client({ name: 'skills-host', version: '1' }, { skills: true, protocolVersion });
      await client.connect(new StdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' }));
      try {
        expect(client.serverCapabilities?.extensions).toEqual({ [SKILLS]: { directoryRead: true } });
        const skills = await client.listSkills();
        expect(skills.map((skill) => skill.uri)).toEqual([
          'skill://pdf-processing/SKILL.md',
          'skill://acme/billing/refunds/SKILL.md',
        ]);
        expect(skills[0]).toEqual({
          uri: 'skill://pdf-processing/SKILL.md',
          frontmatter: {
            name: 'pdf-processing',
            description: 'Extract, fill, and assemble PDF documents',
            metadata: { version: '2.1.0' },
          },
          resources: [
            {
              uri: 'skill://pdf-processing/SKILL.md',
              digest: digest(PDF_SKILL),
              size: Buffer.byteLength(PDF_SKILL),
            },
            expect.objectContaining({ uri: 'skill://pdf-processing/scripts/extract.py' }),
            expect.objectContaining({ uri: 'skill://pdf-processing/templates/invoice.md' }),
            expect.objectContaining({ uri: 'skill://pdf-processing/templates/regional/eu-invoice.md' }),
            { uri: 'skill://pdf-processing/assets/logo.png', digest: digest(LOGO), size: LOGO.byteLength },
          ],
        });
        const { files } = await client.loadSkill(skills[0]!);
        expect(files.map((file) => file.uri).at(0)).toBe('skill://pdf-processing/SKILL.md');
        expect(files.find((file) => file.uri.endsWith('logo.png'))).toEqual({
          uri: 'skill://pdf-processing/assets/logo.png',
          mimeType: 'image/png',
          blob: Buffer.from(LOGO).toString('base64'),
        });
      } finally {
        await client.close();
      }
    });
  }
});

describe('skills on the wire (2025-11-25, stdio)', () => {
  async function wire() {
    const raw = new RawWire(FIXTURE);
    const init = (await raw.initialize()) as { result: { capabilities: Json } };
    let id = 0;
    const rpc = async (method: string, params: Json = {}) =>
      (await raw.call(++id, method, params)) as { result?: Json; error?: { code: number; data?: unknown } };
    return { raw, init, rpc };
  }

  it('declares the extension in the initialize result and serves SKILL.md as a described resource', async () => {
    const { raw, init, rpc } = await wire();
    await using _ = raw;
    expect(init.result.capabilities).toMatchObject({
      resources: { listChanged: true },
      extensions: { [SKILLS]: { directoryRead: true } },
    });
    const { resources } = (await rpc('resources/list')).result as { resources: Json[] };
    expect(resources[0]).toEqual({
      uri: 'skill://pdf-processing/SKILL.md',
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PDF_SKILL),
      _meta: { 'io.modelcontextprotocol.skills/origin': 'fixture' },
    });
    expect(resources.map((r) => r.uri)).toContain('skill://acme/billing/refunds/SKILL.md');
    const read = await rpc('resources/read', { uri: 'skill://pdf-processing/scripts/extract.py' });
    expect(read.result).toEqual({
      contents: [
        {
          uri: 'skill://pdf-processing/scripts/extract.py',
          mimeType: 'text/x-python',
          text: 'print("extract")\n',
        },
      ],
    });
  });

  it('answers skills/get for a served skill only (-32602 otherwise), with no cursor', async () => {
    const { raw, rpc } = await wire();
    await using _ = raw;
    const got = await rpc('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' });
    expect(got.result).toEqual({
      skill: {
        uri: 'skill://acme/billing/refunds/SKILL.md',
        frontmatter: { name: 'refunds', description: 'Process refund requests' },
        resources: [
          {
            uri: 'skill://acme/billing/refunds/SKILL.md',
            digest: digest(REFUNDS_SKILL),
            size: Buffer.byteLength(REFUNDS_SKILL),
          },
        ],
      },
    });
    for (const params of [
      { uri: 'skill://nope/SKILL.md' },
      { uri: 'skill://pdf-processing/templates/invoice.md' },
      {},
    ]) {
      expect((await rpc('skills/get', params)).error).toMatchObject({ code: -32602 });
    }
  });

  it('lists a skill directory’s direct children, subdirectories as inode/directory, -32602 for a file', async () => {
    const { raw, rpc } = await wire();
    await using _ = raw;
    const root = await rpc('resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(root.result).toEqual({
      resources: [
        { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' },
        { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
        { uri: 'skill://pdf-processing/scripts', name: 'scripts', mimeType: 'inode/directory' },
        { uri: 'skill://pdf-processing/templates', name: 'templates', mimeType: 'inode/directory' },
      ],
    });
    const templates = await rpc('resources/directory/read', { uri: 'skill://pdf-processing/templates' });
    expect(templates.result).toEqual({
      resources: [
        { uri: 'skill://pdf-processing/templates/invoice.md', name: 'invoice.md', mimeType: 'text/markdown' },
        { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
      ],
    });
    for (const uri of [
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/nope',
      'skill://acme',
      'file:///',
    ]) {
      expect((await rpc('resources/directory/read', { uri })).error, uri).toMatchObject({ code: -32602 });
    }
  });
});

/** A raw handshake-era peer of `server` on the in-memory pair: one request at a time. */
async function rawLink(server: Server) {
  const [client, end] = createLinkedPair();
  await server.connect(end);
  const waiting = new Map<unknown, (message: Json) => void>();
  client.onmessage = (message) => waiting.get((message as Json).id)?.(message as Json);
  await client.start();
  let id = 0;
  const rpc = (method: string, params: Json = {}) => {
    const answer = new Promise<{ result?: Json; error?: Json }>((resolve) => waiting.set(++id, resolve));
    void client.send({ jsonrpc: '2.0', id, method, params } as never);
    return answer;
  };
  await rpc('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  return rpc;
}

describe('server.skill()', () => {
  const skillMd = (name: string, extra = '') => `---\nname: ${name}\ndescription: d${extra}\n---\nbody\n`;
  const define = (files: SkillDefinition['files']): SkillDefinition => ({ files });

  it('refuses a skill it cannot serve as SEP-2640 says, at registration', () => {
    const server = new Server({ name: 's', version: '1' });
    const refusals: Array<[string, SkillDefinition, RegExp]> = [
      ['Bad_Name', define({ 'SKILL.md': skillMd('Bad_Name') }), /name "Bad_Name"/],
      ['a//b', define({ 'SKILL.md': skillMd('b') }), /path "a\/\/b"/],
      ['other', define({ 'SKILL.md': skillMd('mismatch') }), /must be "other"/],
      ['none', define({ 'README.md': 'x' }), /needs a SKILL.md/],
      ['nofm', define({ 'SKILL.md': '# no frontmatter' }), /frontmatter/],
      ['nodesc', define({ 'SKILL.md': '---\nname: nodesc\n---\n' }), /description/],
      ['escape', define({ 'SKILL.md': skillMd('escape'), '../x': 'x' }), /file path "\.\.\/x"/],
      ['inside', define({ 'SKILL.md': skillMd('inside'), a: 'x', 'a/b': 'y' }), /inside a file/],
    ];
    for (const [path, definition, message] of refusals) {
      expect(() => server.skill(path, definition), path).toThrow(message);
    }
    server.resource('skill://taken/SKILL.md', { name: 'taken' }, () => 'x');
    expect(() => server.skill('taken', define({ 'SKILL.md': skillMd('taken') }))).toThrow(
      /already registered/,
    );
    expect(server.capabilities).not.toHaveProperty('extensions');
  });

  it('pages skills/list and directories, and follows a handle’s update and removal', async () => {
    const server = new Server({ name: 's', version: '1' }, { pageSize: 1 });
    const handle = server.skill('one', define({ 'SKILL.md': skillMd('one'), 'a.md': 'a', 'b.md': 'b' }));
    server.skill('two', define({ 'SKILL.md': skillMd('two') }));
    const raw = await rawLink(server);
    const first = (await raw('skills/list')).result!;
    expect((first.skills as Json[]).map((skill) => skill.uri)).toEqual(['skill://one/SKILL.md']);
    const second = (await raw('skills/list', { cursor: first.nextCursor })).result!;
    expect((second.skills as Json[]).map((skill) => skill.uri)).toEqual(['skill://two/SKILL.md']);
    expect(second).not.toHaveProperty('nextCursor');
    const names: unknown[] = [];
    for (let cursor: unknown = undefined, pages = 0; pages < 5; pages++) {
      const page = (
        await raw('resources/directory/read', { uri: 'skill://one', ...(cursor ? { cursor } : {}) })
      ).result!;
      names.push(...(page.resources as Json[]).map((resource) => resource.name));
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
    expect(names).toEqual(['SKILL.md', 'a.md', 'b.md']);
    expect((await raw('skills/list', { cursor: 'bogus' })).error).toMatchObject({ code: -32602 });

    await using linked = await linkServer(server, { skills: true, protocolVersion: '2025-11-25' });
    const { client } = linked;
    expect((await client.listSkills()).map((skill) => skill.frontmatter.name)).toEqual(['one', 'two']);
    handle.update({ files: { 'SKILL.md': skillMd('one', ' changed') } });
    const [changed] = await client.listSkills();
    expect(changed!.frontmatter.description).toBe('d changed');
    expect(changed!.resources).toHaveLength(1);
    await expect(client.readResource('skill://one/a.md')).rejects.toMatchObject({ code: -32002 });
    handle.remove();
    expect((await client.listSkills()).map((skill) => skill.frontmatter.name)).toEqual(['two']);
    await expect(client.readResource('skill://one/SKILL.md')).rejects.toMatchObject({ code: -32002 });
  });

  it('changes nothing when an update or enable collides with a resource (DUPLICATE_NAME)', async () => {
    const server = new Server({ name: 's', version: '1' });
    const handle = server.skill('acme/other', define({ 'SKILL.md': skillMd('other'), 'a.md': 'a' }));
    server.resource('skill://acme/other/extra.md', { name: 'user' }, () => 'the user’s');
    await using linked = await linkServer(server, { skills: true, protocolVersion: '2025-11-25' });
    const { client } = linked;
    const before = {
      skills: await client.listSkills(),
      resources: (await client.listResources()).map((resource) => resource.uri),
    };
    expect(before.resources).toEqual([
      'skill://acme/other/SKILL.md',
      'skill://acme/other/a.md',
      'skill://acme/other/extra.md',
    ]);
    const unchanged = async () => {
      expect(await client.listSkills()).toEqual(before.skills);
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(before.resources);
      expect(await client.readResource('skill://acme/other/SKILL.md')).toMatchObject({
        contents: [{ text: skillMd('other') }],
      });
      expect(await client.readResource('skill://acme/other/extra.md')).toMatchObject({
        contents: [{ text: 'the user’s' }],
      });
    };

    const colliding = { files: { 'SKILL.md': skillMd('other', ' 2'), 'extra.md': 'mine' } };
    expect(() => handle.update(colliding)).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_NAME', message: expect.stringContaining('extra.md') }),
    );
    await unchanged();
    // The skill's own files are no collision: an update that keeps them goes through.
    handle.update({ files: { 'SKILL.md': skillMd('other', ' 3'), 'a.md': 'a2' } });
    expect((await client.listSkills())[0]!.frontmatter.description).toBe('d 3');

    // Disabled, a skill's files are free; enabling it once one is taken is refused, and it stays disabled.
    handle.disable();
    const taken = server.resource('skill://acme/other/a.md', { name: 'taken' }, () => 'taken');
    expect(() => handle.enable()).toThrow(expect.objectContaining({ code: 'DUPLICATE_NAME' }));
    expect(handle.enabled).toBe(false);
    expect(await client.listSkills()).toEqual([]);
    taken.remove();
    handle.enable();
    expect((await client.listSkills()).map((skill) => skill.uri)).toEqual(['skill://acme/other/SKILL.md']);
  });
});
