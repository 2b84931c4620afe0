/**
 * The skills extension on the server (SEP-2640, `io.modelcontextprotocol/skills`): declared under
 * `capabilities.extensions` (with `directoryRead: true`) in both eras, since skills need nothing of the
 * stateless era; every file of every skill served as a resource (`resources/list` shows them, SKILL.md
 * named and described from its frontmatter; `resources/read` reads them); `skills/list` (the entries,
 * paged, an entry never split), `skills/get` (one entry by its SKILL.md URI, -32602 for any other URI)
 * and `resources/directory/read` (a skill directory's direct children, subdirectories as
 * `inode/directory` resources; -32602 for a URI that is no skill directory). Their results are cacheable
 * in the stateless era (`ttlMs`, `cacheScope`).
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { SKILLS_EXTENSION } from '../../protocol/skills/skill-entry.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import type { Resource } from '../../protocol/types/resources.js';
import type { HandlerTable } from '../handler-table.js';
import { cursorParam, decodeCursor, encodeCursor } from '../pages.js';
import { Registry, type RegistryHandle } from '../registry.js';
import type { ResourcesFeature } from '../resources/resources-feature.js';
import type { ResourceSpec } from '../resources/resource-definition.js';
import type { ServerFeature } from '../server-feature.js';
import { ServerError } from '../server-error.js';
import { buildSkill, type RegisteredSkill, type SkillDefinition } from './skill-definition.js';

function uriParam(params: JsonObject): string {
  if (typeof params.uri !== 'string' || params.uri === '') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: uri must be a non-empty string');
  }
  return params.uri;
}

/** One page of `items` at `cursor` (offsets in the server's cursor format; "" is the first page). */
function pageOf<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { page: T[]; next?: string } {
  const offset = cursor === undefined || cursor === '' ? 0 : decodeCursor(cursor, pageSize);
  const page = items.slice(offset, offset + pageSize);
  const end = offset + pageSize;
  return end < items.length ? { page, next: encodeCursor(end) } : { page };
}

function resourceSpecs(skill: RegisteredSkill): Array<[string, ResourceSpec]> {
  return [...skill.files.values()].map((file) => {
    const skillMd = file.uri === skill.uri;
    const spec: ResourceSpec = {
      name: skillMd ? skill.frontmatter.name : (file.path.split('/').at(-1) ?? file.path),
      mimeType: file.mimeType,
      size: file.bytes.byteLength,
      read: () => file.text ?? file.bytes,
    };
    if (skillMd) spec.description = skill.frontmatter.description;
    if (skillMd && skill.meta !== undefined) spec._meta = skill.meta;
    return [file.uri, spec];
  });
}

export class SkillsFeature implements ServerFeature {
  readonly skills = new Registry<SkillDefinition, RegisteredSkill>('skill', buildSkill);
  readonly #resources: ResourcesFeature;
  readonly #pageSize: number;
  /** The resources serving each skill's files, as registered for that build of the skill. */
  readonly #served = new Map<string, { skill: RegisteredSkill; handles: RegistryHandle<ResourceSpec>[] }>();

  constructor(resources: ResourcesFeature, pageSize: number) {
    this.#resources = resources;
    this.#pageSize = pageSize;
    this.skills.onChange(() => this.#sync());
  }

  capabilities(): ServerCapabilities {
    return { extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } };
  }

  /**
   * Registers a skill; its files' URIs must not be resources already (ServerError DUPLICATE_NAME). So for
   * its handle's `update` and `enable`: checked before anything changes, a refused one changes nothing.
   */
  register(path: string, definition: SkillDefinition): RegistryHandle<SkillDefinition> {
    this.#assertFree(buildSkill(path, definition));
    const handle = this.skills.register(path, definition);
    let current = definition;
    return {
      name: handle.name,
      get enabled() {
        return handle.enabled;
      },
      get removed() {
        return handle.removed;
      },
      enable: () => {
        if (!handle.enabled && !handle.removed) this.#assertFree(buildSkill(path, current));
        handle.enable();
      },
      disable: () => handle.disable(),
      update: (patch) => {
        const next = { ...current, ...patch };
        if (handle.enabled) this.#assertFree(buildSkill(path, next));
        handle.update(patch);
        current = next;
      },
      remove: () => handle.remove(),
    };
  }

  /** Throws DUPLICATE_NAME when a file of `skill` is a resource already (but one the skill serves now). */
  #assertFree(skill: RegisteredSkill): void {
    const own = this.#served.get(skill.path)?.skill.files;
    for (const uri of skill.files.keys()) {
      if (this.#resources.resources.has(uri) && !own?.has(uri)) {
        throw new ServerError(
          LocalErrorCode.DuplicateName,
          `Skill "${skill.path}": a resource ${uri} is already registered`,
        );
      }
    }
  }

  install(handlers: HandlerTable): void {
    const cacheable = { cacheable: true };
    handlers.handle(
      'skills/list',
      async ({ params }) => {
        const { page, next } = pageOf(this.skills.list(), cursorParam(params), this.#pageSize);
        const skills = await Promise.all(page.map((skill) => skill.entry()));
        return next === undefined ? { skills } : { skills, nextCursor: next };
      },
      cacheable,
    );
    handlers.handle(
      'skills/get',
      async ({ params }) => {
        const uri = uriParam(params);
        const skill = this.skills.list().find((s) => s.uri === uri);
        if (!skill)
          throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: no skill at ${echoedName(uri)}`, {
            uri: echoedName(uri),
          });
        return { skill: await skill.entry() };
      },
      cacheable,
    );
    handlers.handle(
      'resources/directory/read',
      ({ params, scope }) => {
        const uri = uriParam(params);
        const children = this.#directory(uri);
        if (!children) {
          throw new ProtocolError(
            ErrorCode.InvalidParams,
            `Invalid params: ${echoedName(uri)} is not a directory`,
            { uri: echoedName(uri) },
          );
        }
        const { page, next } = pageOf(children, cursorParam(params), this.#pageSize);
        const resources = page.map((resource) => scope.profile.shapeResource(resource));
        return next === undefined ? { resources } : { resources, nextCursor: next };
      },
      cacheable,
    );
  }

  /** The children of a skill directory (the innermost skill whose root holds it); undefined for any other URI. */
  #directory(uri: string): readonly Resource[] | undefined {
    let owner: RegisteredSkill | undefined;
    for (const skill of this.skills.list()) {
      const holds = uri === skill.root || uri.startsWith(`${skill.root}/`);
      if (holds && (owner === undefined || skill.root.length > owner.root.length)) owner = skill;
    }
    return owner?.directories.get(uri);
  }

  /** Serves the files of the skills registered now, and no others. */
  #sync(): void {
    const live = new Map(this.skills.list().map((skill) => [skill.path, skill]));
    for (const [path, served] of this.#served) {
      if (live.get(path) === served.skill) continue;
      for (const handle of served.handles) handle.remove();
      this.#served.delete(path);
    }
    for (const skill of live.values()) {
      if (this.#served.has(skill.path)) continue;
      const handles: RegistryHandle<ResourceSpec>[] = [];
      try {
        for (const [uri, spec] of resourceSpecs(skill))
          handles.push(this.#resources.resources.register(uri, spec));
      } catch (error) {
        for (const handle of handles) handle.remove();
        throw error;
      }
      this.#served.set(skill.path, { skill, handles });
    }
  }
}
