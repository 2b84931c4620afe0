/**
 * What `server.skill()` accepts, and its normal form (SEP-2640, the skills extension): a skill is a
 * directory of files, SKILL.md at its root, served as resources under `skill://<skill-path>/`. The
 * definition is checked at registration: a path of URI-safe segments whose last one is the skill's
 * name (the Agent Skills naming rule) and equals the `name` of SKILL.md's frontmatter, which must also
 * have a `description`; file paths inside the skill, no file where a directory is; at most 512 files
 * and 16 MiB in all (the extension's limits). Digests are computed once, when first asked for.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { parseFrontmatter } from '../../protocol/skills/frontmatter.js';
import {
  DIRECTORY_MIME_TYPE,
  SKILL_NAME_PATTERN,
  type SkillEntry,
  type SkillResource,
} from '../../protocol/skills/skill-entry.js';
import type { Resource } from '../../protocol/types/resources.js';
import { ServerError } from '../server-error.js';

export interface SkillDefinition {
  /**
   * Every file of the skill by its path from the skill's root (`/`-separated): `SKILL.md`, which begins
   * with YAML frontmatter holding at least `name` and `description`, and any supporting files. A string
   * is served as text (its UTF-8 bytes are what the digest and size cover), a Uint8Array as a blob.
   */
  files: Readonly<Record<string, string | Uint8Array>>;
  /** Media types by file path, for files whose extension does not say (default: from the extension). */
  mimeTypes?: Readonly<Record<string, string>>;
  /** `_meta` of the SKILL.md resource (use the `io.modelcontextprotocol.skills/` prefix for its keys). */
  _meta?: JsonObject;
}

/** One file of a registered skill. */
export interface SkillFileEntry {
  /** `skill://<skill-path>/<file-path>`. */
  readonly uri: string;
  /** The path from the skill's root. */
  readonly path: string;
  readonly mimeType: string;
  readonly text: string | undefined;
  readonly bytes: Uint8Array;
}

/** A skill ready to serve. */
export interface RegisteredSkill {
  /** The skill path (`git-workflow`, `acme/billing/refunds`). */
  readonly path: string;
  /** The skill's root directory, `skill://<skill-path>`. */
  readonly root: string;
  /** Its SKILL.md, `skill://<skill-path>/SKILL.md`: the skill's URI. */
  readonly uri: string;
  readonly frontmatter: SkillEntry['frontmatter'];
  /** Its files by URI, SKILL.md first. */
  readonly files: ReadonlyMap<string, SkillFileEntry>;
  /** Its directories (the root included) by URI, each with its direct children. */
  readonly directories: ReadonlyMap<string, readonly Resource[]>;
  readonly meta: JsonObject | undefined;
  /** Its `skills/list` entry (SHA-256 digests computed on first use). */
  entry(): Promise<SkillEntry>;
}

export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

const SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-Fa-f]{2})+$/;

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  sh: 'text/x-shellscript',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

function invalid(path: string, why: string): ServerError {
  return new ServerError(LocalErrorCode.InvalidDefinition, `Skill "${path}": ${why}`);
}

function segmentsOf(path: string, what: string, owner: string): string[] {
  const segments = path.split('/');
  if (
    path === '' ||
    !segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..')
  ) {
    throw invalid(
      owner,
      `${what} "${path}" must be /-separated URI path segments (no empty, "." or ".." segment)`,
    );
  }
  return segments;
}

/** `sha256:` and the lowercase hex SHA-256 of `bytes` (Web Crypto: no Node import in the server layer). */
async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The wire form of one file or directory, as `resources/list` and `resources/directory/read` show it. */
function child(uri: string, name: string, mimeType: string): Resource {
  return { uri, name, mimeType };
}

export function buildSkill(path: string, spec: SkillDefinition): RegisteredSkill {
  const segments = segmentsOf(path, 'the path', path);
  const name = segments.at(-1)!;
  if (!SKILL_NAME_PATTERN.test(name)) {
    throw invalid(path, `its name "${name}" must be 1-64 of a-z 0-9 and -, no leading, trailing or double -`);
  }
  const paths = Object.keys(spec.files ?? {});
  if (!paths.includes('SKILL.md')) throw invalid(path, 'it needs a SKILL.md at its root');
  if (paths.length > MAX_SKILL_FILES) throw invalid(path, `it has more than ${MAX_SKILL_FILES} files`);
  for (const [file, mimeType] of Object.entries(spec.mimeTypes ?? {})) {
    if (typeof mimeType !== 'string') throw invalid(path, `mimeTypes["${file}"] must be a string`);
  }
  const root = `skill://${path}`;
  const encoder = new TextEncoder();
  const files = new Map<string, SkillFileEntry>();
  let total = 0;
  // SKILL.md first: an entry's resources and a client's load start there.
  for (const file of ['SKILL.md', ...paths.filter((p) => p !== 'SKILL.md')]) {
    segmentsOf(file, 'the file path', path);
    const value = spec.files[file];
    if (typeof value !== 'string' && !(value instanceof Uint8Array)) {
      throw invalid(path, `file "${file}" must be a string or a Uint8Array`);
    }
    const bytes = typeof value === 'string' ? encoder.encode(value) : value;
    total += bytes.byteLength;
    const extension = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
    const mimeType =
      spec.mimeTypes?.[file] ??
      MIME_TYPES[extension] ??
      (typeof value === 'string' ? 'text/plain' : 'application/octet-stream');
    const uri = `${root}/${file}`;
    files.set(uri, { uri, path: file, mimeType, text: typeof value === 'string' ? value : undefined, bytes });
  }
  if (total > MAX_SKILL_BYTES) throw invalid(path, `its files weigh more than ${MAX_SKILL_BYTES} bytes`);
  const skillMd = files.get(`${root}/SKILL.md`)!;
  const frontmatter = parseFrontmatter(skillMd.text ?? new TextDecoder().decode(skillMd.bytes));
  if (!frontmatter) {
    throw invalid(
      path,
      'SKILL.md must begin with YAML frontmatter (---) that toolwire can read: mappings, sequences, scalars',
    );
  }
  if (frontmatter.name !== name) {
    throw invalid(path, `the frontmatter's name must be "${name}", the last segment of its path`);
  }
  if (typeof frontmatter.description !== 'string' || frontmatter.description === '') {
    throw invalid(path, 'the frontmatter needs a description');
  }
  const directories = directoriesOf(root, files, path);
  let entry: Promise<SkillEntry> | undefined;
  return Object.freeze({
    path,
    root,
    uri: skillMd.uri,
    frontmatter: frontmatter as SkillEntry['frontmatter'],
    files,
    directories,
    meta: spec._meta,
    entry: () =>
      (entry ??= Promise.all(
        [...files.values()].map(async (file): Promise<SkillResource> => ({
          uri: file.uri,
          digest: await sha256(file.bytes),
          size: file.bytes.byteLength,
        })),
      ).then((resources) => ({
        uri: skillMd.uri,
        frontmatter: frontmatter as SkillEntry['frontmatter'],
        resources,
      }))),
  });
}

/** Every directory of the skill with its direct children (files, then subdirectories, each by name). */
function directoriesOf(
  root: string,
  files: ReadonlyMap<string, SkillFileEntry>,
  owner: string,
): Map<string, Resource[]> {
  const children = new Map<string, Map<string, Resource>>([[root, new Map()]]);
  const filed = new Set([...files.values()].map((file) => file.uri));
  for (const file of files.values()) {
    const segments = file.path.split('/');
    let directory = root;
    for (const [index, segment] of segments.entries()) {
      const uri = `${directory}/${segment}`;
      const last = index === segments.length - 1;
      if (!last && filed.has(uri)) throw invalid(owner, `"${file.path}" is inside a file`);
      const listing = children.get(directory)!;
      listing.set(uri, last ? child(uri, segment, file.mimeType) : child(uri, segment, DIRECTORY_MIME_TYPE));
      if (!last && !children.has(uri)) children.set(uri, new Map());
      directory = uri;
    }
  }
  const byName = (a: Resource, b: Resource) =>
    Number(a.mimeType === DIRECTORY_MIME_TYPE) - Number(b.mimeType === DIRECTORY_MIME_TYPE) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return new Map([...children].map(([uri, listing]) => [uri, [...listing.values()].sort(byName)]));
}
