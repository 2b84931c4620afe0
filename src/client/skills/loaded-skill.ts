/**
 * What a client holds of a loaded skill (SEP-2640): each verified file, SKILL.md first. The entry types
 * are the protocol's (`src/protocol/skills/skill-entry.ts`).
 * @module
 */
import type { SkillEntry } from '../../protocol/skills/skill-entry.js';

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
