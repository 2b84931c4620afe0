/**
 * The client side of the skills extension (SEP-2640, `io.modelcontextprotocol/skills`): `skills/list`
 * without touching a single skill file (hosts must not fetch a skill's files ahead of need), and loading a
 * skill: SKILL.md first, checked against its entry's size, digest and frontmatter, then every other file
 * checked against its size and digest. The first file that fails stops the load, so nothing unverified
 * is ever returned and no further file is fetched.
 * @module
 */
import type { RequestOptions } from '../../protocol/engine/peer.js';
import { LocalErrorCode } from '../../protocol/errors.js';
import { isJsonObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities, ServerCapabilities } from '../../protocol/types/lifecycle.js';
import { ClientError } from '../client-error.js';
import { followPages, type ListLimits } from '../follow-pages.js';
import type { Requester } from '../exchange-options.js';
import { readResource } from '../client-resources.js';
import { frontmatterDifferences, parseFrontmatter } from '../../protocol/skills/frontmatter.js';
import { isSkillEntry, SKILLS_EXTENSION, type SkillEntry } from '../../protocol/skills/skill-entry.js';
import type { LoadedSkill, SkillFile } from './loaded-skill.js';
import { bytesOf, fileOf, verifyFile } from './verify-file.js';

export interface SkillsOptions {
  /** Whether the client declared the extension (the `skills` client option). */
  enabled: boolean;
  /** Caps on a `skills/list` listing. */
  listLimits: ListLimits;
  /** The server's capabilities once connected. */
  serverCapabilities(): ServerCapabilities | undefined;
  /** Whether `nextCursor: ""` ends a list (the handshake era's reading, see `EraChannel`). */
  emptyCursorEnds(): boolean;
}

/** `capabilities` with the skills extension declared under `extensions` (other extensions kept). */
export function withSkillsExtension(capabilities: ClientCapabilities = {}): ClientCapabilities {
  const extensions = isJsonObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [SKILLS_EXTENSION]: {} } };
}

export class Skills {
  readonly #request: Requester;
  readonly #options: SkillsOptions;
  /** The entries of the latest `skills/list`, by URI: what `load(uri)` verifies against. */
  readonly #entries = new Map<string, SkillEntry>();

  constructor(request: Requester, options: SkillsOptions) {
    this.#request = request;
    this.#options = options;
  }

  /** Every skill entry (all pages; malformed entries left out). Reads no skill file. */
  async list(options?: RequestOptions): Promise<SkillEntry[]> {
    this.#requireExtension();
    const entries = await followPages(
      (cursor) => this.#request('skills/list', cursor === undefined ? {} : { cursor }, options),
      {
        method: 'skills/list',
        key: 'skills',
        limits: this.#options.listLimits,
        emptyCursorEnds: this.#options.emptyCursorEnds(),
        accept: isSkillEntry,
      },
    );
    this.#entries.clear();
    for (const entry of entries) this.#entries.set(entry.uri, entry);
    return entries;
  }

  /**
   * Loads a skill: reads each of its files with `resources/read` and verifies it against the entry (a URI
   * is looked up in the latest `skills/list`, which is called when it has not been). Throws ClientError
   * INVALID_RESULT with `details.check` `size`, `digest` or `frontmatter` on the first file that fails.
   */
  async load(skill: string | SkillEntry, options?: RequestOptions): Promise<LoadedSkill> {
    this.#requireExtension();
    const entry = typeof skill === 'string' ? await this.#entry(skill, options) : skill;
    if (entry.resources === 'dynamic') {
      const file = await this.#read(entry.uri, options);
      checkFrontmatter(entry, file);
      return { entry, files: [file] };
    }
    const skillMd = entry.resources.find((r) => r.uri === entry.uri);
    if (!skillMd) {
      throw new ClientError(
        LocalErrorCode.InvalidResult,
        `The skills/list entry ${entry.uri} does not list its SKILL.md`,
        {
          details: { skill: entry.uri, resources: entry.resources },
        },
      );
    }
    const files: SkillFile[] = [];
    for (const listed of [skillMd, ...entry.resources.filter((r) => r !== skillMd)]) {
      const file = await this.#read(listed.uri, options);
      await verifyFile(entry.uri, listed, file);
      if (listed === skillMd) checkFrontmatter(entry, file);
      files.push(file);
    }
    return { entry, files };
  }

  async #entry(uri: string, options?: RequestOptions): Promise<SkillEntry> {
    const entry = this.#entries.get(uri) ?? (await this.list(options)).find((e) => e.uri === uri);
    if (!entry) {
      throw new ClientError(LocalErrorCode.InvalidResult, `skills/list has no skill ${uri}`, {
        details: { skill: uri },
      });
    }
    return entry;
  }

  async #read(uri: string, options?: RequestOptions): Promise<SkillFile> {
    const result = await readResource(this.#request, uri, options);
    return fileOf(uri, result.contents);
  }

  #requireExtension(): void {
    if (!this.#options.enabled) {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `The client does not declare ${SKILLS_EXTENSION}: create it with { skills: true }`,
      );
    }
    const extensions = this.#options.serverCapabilities()?.extensions;
    if (!isJsonObject(extensions) || !isJsonObject(extensions[SKILLS_EXTENSION])) {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `The server does not declare ${SKILLS_EXTENSION}`,
      );
    }
  }
}

/** Throws ClientError INVALID_RESULT unless SKILL.md's frontmatter equals the entry's, field by field. */
function checkFrontmatter(entry: SkillEntry, file: SkillFile): void {
  const text = file.text ?? new TextDecoder().decode(bytesOf(file));
  const parsed = parseFrontmatter(text);
  const differing = parsed ? frontmatterDifferences(parsed, entry.frontmatter) : undefined;
  if (differing?.length === 0) return;
  const reason = differing
    ? `its frontmatter differs from the skills/list entry in ${differing.join(', ')}`
    : 'it has no frontmatter this client can parse';
  throw new ClientError(
    LocalErrorCode.InvalidResult,
    `Skill file ${file.uri} fails verification: ${reason}; the skill is not loaded`,
    {
      details: {
        skill: entry.uri,
        uri: file.uri,
        check: 'frontmatter',
        fields: differing ?? [],
        expected: entry.frontmatter,
        actual: parsed ?? null,
      },
    },
  );
}
