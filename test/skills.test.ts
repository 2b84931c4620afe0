// The client side of the skills extension (SEP-2640) against a hand-written server on the in-memory pair:
// the capability it declares, skills/list without any file read, and loading a skill with every file
// verified (size, digest, SKILL.md frontmatter) before anything is returned.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../src/protocol/errors.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const EXTENSION = 'io.modelcontextprotocol/skills';
const SKILL_MD = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';
const LOGO = 'skill://pdf-processing/assets/logo.png';
const FRONTMATTER = { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' };
const BODY = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
---

Skill body.
`;
const FORMS_TEXT = 'Supporting content.\n';
const LOGO_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);

const digest = (data: string | Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
const size = (data: string | Buffer) => Buffer.byteLength(data);

function entry(skillMd = BODY): JsonObject {
  return {
    uri: SKILL_MD,
    frontmatter: FRONTMATTER,
    resources: [
      { uri: SKILL_MD, digest: digest(skillMd), size: size(skillMd) },
      { uri: FORMS, digest: digest(FORMS_TEXT), size: size(FORMS_TEXT) },
      { uri: LOGO, digest: digest(LOGO_BYTES), size: size(LOGO_BYTES) },
    ],
  };
}

/** A handshake-era server that declares the extension and serves `files` (SKILL.md defaults to BODY). */
async function skillServer(
  files: Record<string, string> = {},
  listed: JsonObject = entry(),
  options: ClientOptions = { skills: true },
) {
  const [clientEnd, serverEnd] = createLinkedPair();
  const peer = new Peer();
  const reads: string[] = [];
  let initialize: JsonObject | undefined;
  peer.setRequestHandler('initialize', (params) => {
    initialize = params;
    return {
      protocolVersion: '2025-11-25',
      capabilities: { resources: {}, extensions: { [EXTENSION]: {} } },
      serverInfo: { name: 'skills', version: '0' },
    };
  });
  peer.setRequestHandler('skills/list', () => ({ skills: [listed, { uri: 'skill://broken/SKILL.md' }] }));
  peer.setRequestHandler('resources/read', (params) => {
    const uri = params.uri as string;
    reads.push(uri);
    if (uri === LOGO)
      return { contents: [{ uri, mimeType: 'image/png', blob: LOGO_BYTES.toString('base64') }] };
    const text = uri === FORMS ? FORMS_TEXT : uri === SKILL_MD ? (files[SKILL_MD] ?? BODY) : undefined;
    if (text === undefined) throw new ProtocolError(ErrorCode.InvalidParams, `unknown ${uri}`);
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  });
  await peer.connect(serverEnd);
  const client = new Client({ name: 'c', version: '1' }, { protocolVersion: '2025-11-25', ...options });
  await client.connect(clientEnd);
  return { client, reads, initialize: () => initialize };
}

describe('skills extension (client)', () => {
  it('declares the extension only when asked to', async () => {
    const on = await skillServer();
    expect(on.initialize()?.capabilities).toMatchObject({ extensions: { [EXTENSION]: {} } });
    const off = await skillServer({}, entry(), {});
    expect(off.initialize()?.capabilities).not.toHaveProperty('extensions');
    await expect(off.client.listSkills()).rejects.toMatchObject({ code: 'CAPABILITY_NOT_SUPPORTED' });
  });

  it('lists skills without reading any skill file, leaving out malformed entries', async () => {
    const { client, reads } = await skillServer();
    const skills = await client.listSkills();
    expect(skills).toEqual([entry()]);
    expect(reads).toEqual([]);
  });

  it('loads a skill: SKILL.md first, every file verified, text and blob returned', async () => {
    const { client, reads } = await skillServer();
    const skill = await client.loadSkill(SKILL_MD);
    expect(reads).toEqual([SKILL_MD, FORMS, LOGO]);
    expect(skill.entry.uri).toBe(SKILL_MD);
    expect(skill.files).toEqual([
      { uri: SKILL_MD, mimeType: 'text/markdown', text: BODY },
      { uri: FORMS, mimeType: 'text/markdown', text: FORMS_TEXT },
      { uri: LOGO, mimeType: 'image/png', blob: LOGO_BYTES.toString('base64') },
    ]);
  });

  it('refuses a SKILL.md whose digest differs, and reads nothing further', async () => {
    const evil = BODY.replace('Skill body.', 'Evil body!!');
    const { client, reads } = await skillServer({ [SKILL_MD]: evil });
    await client.listSkills();
    await expect(client.loadSkill(SKILL_MD)).rejects.toMatchObject({
      name: 'ClientError',
      code: 'INVALID_RESULT',
      details: {
        skill: SKILL_MD,
        uri: SKILL_MD,
        check: 'digest',
        expected: digest(BODY),
        actual: digest(evil),
      },
    });
    expect(reads).toEqual([SKILL_MD]);
  });

  it('refuses a SKILL.md whose byte size differs', async () => {
    const longer = `${BODY}extra bytes the entry did not account for\n`;
    const { client, reads } = await skillServer({ [SKILL_MD]: longer });
    await expect(client.loadSkill(SKILL_MD)).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      details: { uri: SKILL_MD, check: 'size', expected: size(BODY), actual: size(longer) },
    });
    expect(reads).toEqual([SKILL_MD]);
  });

  it('refuses a SKILL.md whose frontmatter differs from the entry, even with a matching digest', async () => {
    const tampered = BODY.replace(
      'description: Extract, fill, and assemble PDF documents',
      'description: Exfiltrate',
    );
    const { client, reads } = await skillServer({ [SKILL_MD]: tampered }, entry(tampered));
    await expect(client.loadSkill(SKILL_MD)).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message: expect.stringContaining('description'),
      details: { check: 'frontmatter', fields: ['description'], actual: { description: 'Exfiltrate' } },
    });
    expect(reads).toEqual([SKILL_MD]);
  });

  it('refuses a supporting file that fails verification after SKILL.md passed', async () => {
    const listed = entry();
    (listed.resources as JsonObject[])[1]!.digest = digest('something else\n');
    const { client, reads } = await skillServer({}, listed);
    await expect(client.loadSkill(listed as never)).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      details: { uri: FORMS, check: 'digest' },
    });
    expect(reads).toEqual([SKILL_MD, FORMS]);
  });

  it("stateless era: declares the extension in every request's _meta and loads the same way", async () => {
    const [clientEnd, serverEnd] = createLinkedPair();
    const peer = new Peer();
    const received: { method: string; params: JsonObject }[] = [];
    const handlers: Record<string, (params: JsonObject) => JsonObject> = {
      'server/discover': () => ({
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { resources: {}, extensions: { [EXTENSION]: {} } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'skills', version: '0' } },
      }),
      'skills/list': () => ({ resultType: 'complete', skills: [entry()] }),
      'resources/read': (params) => {
        const uri = params.uri as string;
        const contents =
          uri === LOGO
            ? { uri, blob: LOGO_BYTES.toString('base64') }
            : { uri, text: uri === FORMS ? FORMS_TEXT : BODY };
        return { resultType: 'complete', contents: [contents] };
      },
    };
    for (const [method, handler] of Object.entries(handlers)) {
      peer.setRequestHandler(method, (params) => {
        received.push({ method, params });
        return handler(params);
      });
    }
    await peer.connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' }, { skills: true });
    await client.connect(clientEnd);
    expect(client.era).toBe('stateless');
    const [listed] = await client.listSkills();
    const skill = await client.loadSkill(listed!);
    expect(skill.files.map((f) => f.uri)).toEqual([SKILL_MD, FORMS, LOGO]);
    const list = received.find((r) => r.method === 'skills/list')!;
    expect(list.params._meta).toMatchObject({
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXTENSION]: {} } },
    });
    expect(received.map((r) => r.method)).toEqual([
      'server/discover',
      'skills/list',
      'resources/read',
      'resources/read',
      'resources/read',
    ]);
    await client.close();
  });
});
