/**
 * What `skills/list` says about a skill (SEP-2640, the `io.modelcontextprotocol/skills` extension): its
 * SKILL.md URI, the SKILL.md frontmatter, and every file of the skill with its digest and byte size (or
 * `"dynamic"` when the server does not enumerate them), plus the check that keeps malformed entries out.
 * @module
 */
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';

/** The extension's identifier, the key under `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** One file of a skill as its entry lists it. */
export interface SkillResource {
  uri: string;
  /** `sha256:` and the lowercase hex SHA-256 of the file's raw bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
  [key: string]: unknown;
}

/** One skill as `skills/list` describes it. */
export interface SkillEntry {
  /** The skill's SKILL.md, e.g. `skill://pdf-processing/SKILL.md`. */
  uri: string;
  /** Identical in content to the YAML frontmatter of the SKILL.md (at least `name` and `description`). */
  frontmatter: JsonObject & { name: string; description: string };
  /** Every file of the skill, SKILL.md included; `"dynamic"` when the server does not list them. */
  resources: SkillResource[] | 'dynamic';
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** One verified file of a loaded skill: the `resources/read` contents whose bytes matched the entry. */
export interface SkillFile {
  uri: string;
  mimeType?: string;
  /** Text contents (exactly one of `text` and `blob` is set). */
  text?: string;
  /** Base64 binary contents. */
  blob?: string;
}

/** A skill whose files were all read and verified against its entry. SKILL.md comes first. */
export interface LoadedSkill {
  entry: SkillEntry;
  files: SkillFile[];
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

function isSkillResource(value: unknown): value is SkillResource {
  return (
    isJsonObject(value) &&
    typeof value.uri === 'string' &&
    typeof value.digest === 'string' &&
    DIGEST.test(value.digest) &&
    typeof value.size === 'number' &&
    Number.isSafeInteger(value.size) &&
    value.size >= 0
  );
}

/** Whether a `skills/list` item is a well-formed entry (items that are not are left out of the list). */
export function isSkillEntry(value: unknown): value is SkillEntry {
  if (!isJsonObject(value) || typeof value.uri !== 'string') return false;
  const frontmatter = value.frontmatter;
  if (!isJsonObject(frontmatter)) return false;
  if (typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string') return false;
  const resources = value.resources;
  return resources === 'dynamic' || (Array.isArray(resources) && resources.every(isSkillResource));
}
