/**
 * Verification of one skill file read with `resources/read` against what its `skills/list` entry says:
 * the byte length first (a size mismatch is a failure whether or not the digest is computed), then the
 * SHA-256 digest of the raw bytes (Web Crypto, so the client layer stays free of `node:` imports).
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { isJsonObject } from '../../protocol/jsonrpc.js';
import { ClientError } from '../client-error.js';
import type { SkillResource } from '../../protocol/skills/skill-entry.js';
import type { SkillFile } from './loaded-skill.js';

/** The single `contents` item of a `resources/read` result for `uri`, as a SkillFile. */
export function fileOf(uri: string, contents: unknown[]): SkillFile {
  const item = contents.find((c) => isJsonObject(c) && c.uri === uri) ?? contents[0];
  if (!isJsonObject(item) || (typeof item.text !== 'string') === (typeof item.blob !== 'string')) {
    throw new ClientError(
      LocalErrorCode.InvalidResult,
      `resources/read ${uri} returned no text or blob contents`,
      {
        details: { uri, contents },
      },
    );
  }
  const file: SkillFile = { uri };
  if (typeof item.mimeType === 'string') file.mimeType = item.mimeType;
  if (typeof item.text === 'string') file.text = item.text;
  if (typeof item.blob === 'string') file.blob = item.blob;
  return file;
}

/** The raw bytes of a file: UTF-8 for text, base64-decoded for a blob. */
export function bytesOf(file: SkillFile): Uint8Array {
  if (file.text !== undefined) return new TextEncoder().encode(file.text);
  const binary = atob(file.blob ?? '');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `sha256:` and the lowercase hex SHA-256 of `bytes`. */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Throws ClientError INVALID_RESULT (details `{ skill, uri, check: 'size' | 'digest', expected, actual }`)
 * unless the file's bytes have the entry's size and digest.
 */
export async function verifyFile(skill: string, listed: SkillResource, file: SkillFile): Promise<void> {
  const bytes = bytesOf(file);
  if (bytes.byteLength !== listed.size) {
    throw mismatch(skill, listed.uri, 'size', listed.size, bytes.byteLength);
  }
  const digest = await sha256Digest(bytes);
  if (digest !== listed.digest) throw mismatch(skill, listed.uri, 'digest', listed.digest, digest);
}

function mismatch(
  skill: string,
  uri: string,
  check: string,
  expected: unknown,
  actual: unknown,
): ClientError {
  return new ClientError(
    LocalErrorCode.InvalidResult,
    `Skill file ${uri} fails verification: its ${check} is ${String(actual)}, the skills/list entry says ${String(expected)}; the skill is not loaded`,
    { details: { skill, uri, check, expected, actual } },
  );
}
