/**
 * The resources feature of a server: two registries (resources by URI, templates by URI template),
 * their pages, `resources/read` (exact URIs win over templates), per-session subscriptions and
 * `notifications/resources/updated`, and `notifications/resources/list_changed`.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import type {
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ResourceUpdatedParams,
} from '../../protocol/types/resources.js';
import { Pages, cursorParam } from '../pages.js';
import { Registry } from '../registry.js';
import type { ServerFeature } from '../server-feature.js';
import type { HandlerTable } from '../handler-table.js';
import type { SessionView } from '../session-view.js';
import { ListChanged, type FeatureHost } from '../list-changed.js';
import { AskingContext } from '../request-signal-context.js';
import {
  MAX_SUBSCRIBED_CHARACTERS,
  MAX_SUBSCRIBED_URI_LENGTH,
  MAX_SUBSCRIPTIONS,
} from '../subscriptions/subscription-filter.js';
import { withInput } from '../context-host.js';
import { isInputRequired } from '../input-required/input-requests.js';
import { askingUrlElicitations } from '../input-required/url-elicitations-asked.js';
import { reportedBug } from '../reported-bug.js';
import { CoalescedUpdates } from './coalesced-updates.js';
import { resourceNotFound, toReadResult } from './read-result.js';
import {
  buildResource,
  buildResourceTemplate,
  type RegisteredResource,
  type RegisteredResourceTemplate,
  type ResourceContext,
  type ResourceSpec,
  type ResourceTemplateSpec,
} from './resource-definition.js';

function uriParam(params: JsonObject): string {
  if (typeof params.uri !== 'string') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: uri must be a string');
  }
  return params.uri;
}

export class ResourcesFeature implements ServerFeature {
  readonly resources = new Registry<ResourceSpec, RegisteredResource>('resource', buildResource);
  readonly templates = new Registry<ResourceTemplateSpec, RegisteredResourceTemplate>(
    'resource template',
    buildResourceTemplate,
  );
  readonly #host: FeatureHost;
  readonly #resourcePages: Pages<RegisteredResource, Resource, 'resources'>;
  readonly #templatePages: Pages<RegisteredResourceTemplate, ResourceTemplate, 'resourceTemplates'>;
  readonly #subscriptions = new WeakMap<SessionView, Set<string>>();
  /** The updates being sent, per subscriber and URI (a flood of one URI's updates is one more each). */
  readonly #updates = new CoalescedUpdates();
  /** The characters of each session's subscribed URIs, all told (`MAX_SUBSCRIBED_CHARACTERS` at most). */
  readonly #subscribedCharacters = new WeakMap<SessionView, number>();
  readonly #listChanged: ListChanged;

  constructor(host: FeatureHost) {
    this.#host = host;
    this.#resourcePages = new Pages('resources', host.pageSize, (e, profile) =>
      profile.shapeResource(e.resource),
    );
    this.#templatePages = new Pages('resourceTemplates', host.pageSize, (e, profile) =>
      profile.shapeResourceTemplate(e.template),
    );
    this.#listChanged = new ListChanged(
      'notifications/resources/list_changed',
      () => this.resources.version + this.templates.version,
      host,
    );
    this.resources.onChange(() => this.#listChanged.changed());
    this.templates.onChange(() => this.#listChanged.changed());
  }

  capabilities(): ServerCapabilities {
    return { resources: { subscribe: true, listChanged: true } };
  }

  bind(session: SessionView): void {
    this.#listChanged.bind(session);
  }

  install(handlers: HandlerTable): void {
    const cacheable = { cacheable: true };
    const handshakeOnly = { eras: ['handshake'] } as const;
    handlers.handle(
      'resources/list',
      ({ params, scope }) => {
        const { resources } = this;
        const cursor = cursorParam(params);
        return this.#resourcePages.page(resources.list(), resources.version, scope.profile, cursor);
      },
      cacheable,
    );
    handlers.handle(
      'resources/templates/list',
      ({ params, scope }) => {
        const { templates } = this;
        const cursor = cursorParam(params);
        return this.#templatePages.page(templates.list(), templates.version, scope.profile, cursor);
      },
      cacheable,
    );
    handlers.handle(
      'resources/read',
      async ({ params, scope, ctx, session }) => {
        const uri = uriParam(params);
        const value = await Promise.resolve(
          withInput(session, scope, params, 'resources/read', ctx, (tool) => {
            const read = () => this.read(uri, new AskingContext(ctx, scope.client, tool));
            // The stateless era has no -32042: a reader's URL elicitations are asked (input_required).
            if (scope.era === 'stateless') return askingUrlElicitations(`resource ${uri}`, tool, read);
            return read();
          }),
        ).catch((error: unknown) => {
          // 2026-07-28: an unknown resource is -32602 (never -32002).
          if (
            scope.profile.features.stateless &&
            error instanceof ProtocolError &&
            error.code === ErrorCode.ResourceNotFound
          ) {
            throw new ProtocolError(ErrorCode.InvalidParams, error.message, error.data);
          }
          throw error;
        });
        if (isInputRequired(value)) return value;
        return scope.profile.shapeReadResult(value);
      },
      cacheable,
    );
    handlers.handle(
      'resources/subscribe',
      ({ params, session }) => {
        const uri = uriParam(params);
        let uris = this.#subscriptions.get(session);
        if (uris?.has(uri)) return {};
        // What a session holds here (and in a shared store's record of it) is bounded.
        if (uri.length > MAX_SUBSCRIBED_URI_LENGTH) {
          throw new ProtocolError(
            ErrorCode.InvalidParams,
            `Invalid params: a subscribed uri is at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
          );
        }
        if ((uris?.size ?? 0) >= MAX_SUBSCRIPTIONS) {
          throw new ProtocolError(
            ErrorCode.RateLimited,
            `Too many subscriptions: this session is subscribed to ${MAX_SUBSCRIPTIONS} resources (the limit); unsubscribe from one first`,
            { limit: 'subscriptions', max: MAX_SUBSCRIPTIONS },
          );
        }
        const characters = (this.#subscribedCharacters.get(session) ?? 0) + uri.length;
        if (characters > MAX_SUBSCRIBED_CHARACTERS) {
          throw new ProtocolError(
            ErrorCode.RateLimited,
            `Too many subscriptions: this session's subscribed uris would be longer than ${MAX_SUBSCRIBED_CHARACTERS} characters in all (the limit); unsubscribe from one first`,
            { limit: 'subscriptions', maxCharacters: MAX_SUBSCRIBED_CHARACTERS },
          );
        }
        if (!uris) this.#subscriptions.set(session, (uris = new Set()));
        uris.add(uri);
        this.#subscribedCharacters.set(session, characters);
        session.stateChanged();
        return {};
      },
      handshakeOnly,
    );
    handlers.handle(
      'resources/unsubscribe',
      ({ params, session }) => {
        const uri = uriParam(params);
        if (this.#subscriptions.get(session)?.delete(uri)) {
          this.#subscribedCharacters.set(
            session,
            (this.#subscribedCharacters.get(session) ?? 0) - uri.length,
          );
          session.stateChanged();
        }
        return {};
      },
      handshakeOnly,
    );
  }

  /** The URIs a session subscribed to (`resources/subscribe`). */
  subscriptionsOf(session: SessionView): string[] {
    return [...(this.#subscriptions.get(session) ?? [])];
  }

  /** Makes `uris` a session's subscriptions (a session taken up from a shared store, or changed there). */
  subscribe(session: SessionView, uris: readonly string[]): void {
    const unique = new Set(uris);
    let characters = 0;
    for (const uri of unique) characters += uri.length;
    if (unique.size > 0) this.#subscriptions.set(session, unique);
    else this.#subscriptions.delete(session);
    this.#subscribedCharacters.set(session, characters);
  }

  /** Reads `uri`: the resource registered under it, else the first template that matches; else -32002. */
  async read(uri: string, context: ResourceContext): Promise<ReadResourceResult> {
    const exact = this.resources.get(uri);
    const report = this.#host.onResourceBug;
    if (exact) {
      const value = await exact.read(uri, context);
      return reportedBug(() => toReadResult(value, uri, exact.resource.mimeType), report, uri);
    }
    for (const template of this.templates.list()) {
      const variables = template.matcher.match(uri);
      if (variables) {
        const value = await template.read(uri, variables, context);
        return reportedBug(() => toReadResult(value, uri, template.template.mimeType), report, uri);
      }
    }
    throw resourceNotFound(uri);
  }

  /**
   * Sends `notifications/resources/updated` to every initialized session subscribed to `uri`, and on
   * every `subscriptions/listen` stream whose `resourceSubscriptions` name it.
   */
  async notifyUpdated(uri: string): Promise<void> {
    const params: ResourceUpdatedParams = { uri };
    const sends: Promise<void>[] = [];
    for (const session of this.#host.sessions()) {
      if (!session.ready || !this.#subscriptions.get(session)?.has(uri)) continue;
      sends.push(
        this.#updates.send(session, uri, () =>
          session.peer.notify('notifications/resources/updated', { ...params }),
        ),
      );
    }
    for (const subscription of this.#host.subscriptions()) {
      if (subscription.watches(uri)) {
        sends.push(
          this.#updates.send(subscription, uri, () =>
            subscription.notify('notifications/resources/updated', { uri }),
          ),
        );
      }
    }
    await Promise.all(sends);
  }

  close(): void {
    this.#listChanged.cancel();
  }
}
