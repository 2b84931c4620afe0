/**
 * What `skills/list` and `skills/get` say about a skill (SEP-2640, the `io.modelcontextprotocol/skills`
 * extension): its SKILL.md URI, the SKILL.md frontmatter, and every file of the skill with its digest and
 * byte size (or `"dynamic"` when the server does not enumerate them), plus the check that keeps
 * malformed entries out; and the naming rule of a skill (the Agent Skills specification's).
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';

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

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A skill name (the last segment of its path): 1-64 of a-z 0-9 -, no leading, trailing or double hyphen. */
export const SKILL_NAME_PATTERN = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/** The media type of a directory resource (`resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

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
