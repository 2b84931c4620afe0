/**
 * What `server.resource()` and `server.resourceTemplate()` accept, and their normal forms: the wire
 * `Resource` / `ResourceTemplate`, the compiled URI template, the reader, the completers. A bad
 * definition throws at registration.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { Resource, ResourceTemplate } from '../../protocol/types/resources.js';
import { completersOf, type Completer } from '../completions/completer.js';
import { ServerError } from '../server-error.js';
import type { RequestHandlerContext } from '../request-signal-context.js';
import type { ResourceReturn } from './read-result.js';
import { UriTemplate } from './uri-template.js';

/** A resource reader's context. */
export type ResourceContext = RequestHandlerContext;

export type ResourceReader = (uri: string, ctx: ResourceContext) => ResourceReturn | Promise<ResourceReturn>;

export type ResourceTemplateReader = (
  uri: string,
  variables: Record<string, string>,
  ctx: ResourceContext,
) => ResourceReturn | Promise<ResourceReturn>;

/** The fields of a resource besides its URI (`title`, `icons`, `_meta` reach only revisions that have them). */
export type ResourceDefinition = Omit<Resource, 'uri'>;

export interface ResourceTemplateDefinition extends Omit<ResourceDefinition, 'size'> {
  /** Completion of the template's variables, by variable name. */
  complete?: Record<string, Completer>;
}

/** A definition plus its reader: what the registry stores and `handle.update()` patches. */
export interface ResourceSpec extends ResourceDefinition {
  read: ResourceReader;
}

export interface ResourceTemplateSpec extends ResourceTemplateDefinition {
  read: ResourceTemplateReader;
}

export interface RegisteredResource {
  readonly uri: string;
  /** The full wire form; shaping narrows it per peer. */
  readonly resource: Resource;
  readonly read: ResourceReader;
}

export interface RegisteredResourceTemplate {
  readonly uriTemplate: string;
  readonly template: ResourceTemplate;
  readonly matcher: UriTemplate;
  readonly read: ResourceTemplateReader;
  readonly completers: ReadonlyMap<string, Completer>;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function invalid(message: string): ServerError {
  return new ServerError(LocalErrorCode.InvalidDefinition, message);
}

/** The wire fields resources and templates share (`uri`/`uriTemplate` and `size` aside). */
type Common = Omit<Resource, 'uri' | 'size'>;

/** Checks and copies the shared fields (unknown fields are not copied). */
function common(owner: string, definition: ResourceTemplateDefinition, read: unknown): Common {
  if (typeof definition.name !== 'string' || definition.name.length === 0) {
    throw invalid(`${owner} needs a name`);
  }
  if (typeof read !== 'function') throw invalid(`${owner} needs a read function`);
  for (const field of ['title', 'description', 'mimeType'] as const) {
    const value: unknown = definition[field];
    if (value !== undefined && typeof value !== 'string')
      throw invalid(`${owner}: ${field} must be a string`);
  }
  const out: Common = { name: definition.name };
  if (definition.title !== undefined) out.title = definition.title;
  if (definition.description !== undefined) out.description = definition.description;
  if (definition.mimeType !== undefined) out.mimeType = definition.mimeType;
  if (definition.annotations !== undefined) out.annotations = definition.annotations;
  if (definition.icons !== undefined) out.icons = definition.icons;
  if (definition._meta !== undefined) out._meta = definition._meta;
  return out;
}

export function buildResource(uri: string, spec: ResourceSpec): RegisteredResource {
  const owner = `Resource "${uri}"`;
  if (!SCHEME.test(uri)) throw invalid(`${owner}: the URI needs a scheme (e.g. file:// or https://)`);
  if (UriTemplate.isTemplate(uri)) {
    throw invalid(`${owner}: the URI is a template; register it with server.resourceTemplate()`);
  }
  const resource: Resource = { uri, ...common(owner, spec, spec.read) };
  if (spec.size !== undefined) {
    if (!Number.isSafeInteger(spec.size) || spec.size < 0) throw invalid(`${owner}: size must be bytes`);
    resource.size = spec.size;
  }
  return Object.freeze({ uri, resource: Object.freeze(resource), read: spec.read });
}

export function buildResourceTemplate(
  uriTemplate: string,
  spec: ResourceTemplateSpec,
): RegisteredResourceTemplate {
  const owner = `Resource template "${uriTemplate}"`;
  if (!SCHEME.test(uriTemplate)) throw invalid(`${owner}: the URI template needs a scheme`);
  const matcher = new UriTemplate(uriTemplate);
  const template: ResourceTemplate = { uriTemplate, ...common(owner, spec, spec.read) };
  const completers = completersOf(owner, spec.complete, matcher.variables);
  return Object.freeze({
    uriTemplate,
    template: Object.freeze(template),
    matcher,
    read: spec.read,
    completers,
  });
}
