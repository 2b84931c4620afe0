/**
 * The upstreams' resources, resource templates and prompts on the gateway's server: resources and
 * templates under their own URIs (a URI two upstreams share is exposed once, with a warning), prompts
 * under namespaced names like tools. Reads, prompt gets and `completion/complete` go to the upstream
 * that lists them (the upstream's questions during a read or get reach the caller, see
 * relayed-request.ts); a down upstream's entries are disabled until it is back.
 * @module
 */
import {
  ErrorCode,
  ProtocolError,
  canonicalJson,
  errorMessage,
  type CompletionReference,
  type ExchangeOptions,
  type Prompt,
  type ReadResourceResult,
  type RequestMetaOptions,
  type Resource,
  type ResourceTemplate,
} from '../index.js';
import {
  UriTemplate,
  type Completer,
  type CompletionContext,
  type PromptArgumentDefinition,
  type RegistryHandle,
  type ResourceContext,
  type Server,
} from '../server/index.js';
import type { ElicitationRoutes } from './elicitation-routes.js';
import { forwardedMeta } from './forwarded-meta.js';
import { digestOfText } from '../stores/digest-of-text.js';
import type { ParkedCalls } from './parked-calls.js';
import type { CallsInFlight } from './calls-in-flight.js';
import { relayedRequest, upstreamFailure } from './relayed-request.js';
import { withSafeIcons, withSafePromptIcons } from './safe-icons.js';
import type { ToolNamer } from './tool-namer.js';
import type { Upstream } from './upstream.js';

interface Entry {
  readonly upstream: Upstream;
  readonly kind: 'resource' | 'template' | 'prompt';
  /** What the listing said, to tell a change. */
  readonly listed: string;
  readonly handle: RegistryHandle<unknown>;
  /** A template's, to tell which URIs it exposes. */
  readonly matcher?: UriTemplate;
}

function clientOf(upstream: Upstream) {
  const client = upstream.client;
  if (!client || upstream.status !== 'ready') {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Upstream ${upstream.name} is unavailable; try again later`,
    );
  }
  return client;
}

/**
 * Completes `argument` from `upstream` with the caller's signal and what of its `_meta` goes upstream; a
 * failure on the way names the upstream and `what` (`lang of prompt review`), as a read's or get's does.
 */
async function relayedComplete(
  upstream: Upstream,
  what: string,
  ref: CompletionReference,
  argument: { name: string; value: string },
  ctx: CompletionContext,
): Promise<string[]> {
  const client = clientOf(upstream);
  const meta = forwardedMeta(ctx.meta);
  const options: RequestMetaOptions = meta ? { signal: ctx.signal, meta } : { signal: ctx.signal };
  try {
    return (await client.complete(ref, argument, { ...ctx.arguments }, options)).values;
  } catch (error) {
    return upstreamFailure(upstream, `complete ${what}`, ctx.signal, error);
  }
}

/** The listed fields of a resource or template, for registration (`uri` / `uriTemplate` left out; safe icons only). */
function described<T extends Resource | ResourceTemplate>(item: T) {
  const { uri: _uri, uriTemplate: _template, ...rest } = item as T & { uri?: string; uriTemplate?: string };
  return withSafeIcons(rest);
}

export class ExposedCatalog {
  readonly #server: Server;
  readonly #warn: (upstream: Upstream, message: string) => void;
  /** By kind and key (URI, URI template, namespaced prompt name). */
  readonly #entries = new Map<string, Entry>();
  readonly #warned = new Set<string>();
  /** Where the URL elicitations relayed to a caller complete. */
  readonly #routes: ElicitationRoutes;
  /** Where stateless-era prompt gets and resource reads wait between their caller's rounds. */
  readonly #parked: ParkedCalls;
  /** The requests in flight on each upstream (see `CallsInFlight`). */
  readonly #inFlight: CallsInFlight;
  #namer: ToolNamer;

  constructor(
    server: Server,
    namer: ToolNamer,
    warn: (upstream: Upstream, message: string) => void,
    routes: ElicitationRoutes,
    parked: ParkedCalls,
    inFlight: CallsInFlight,
  ) {
    this.#server = server;
    this.#namer = namer;
    this.#warn = warn;
    this.#routes = routes;
    this.#parked = parked;
    this.#inFlight = inFlight;
  }

  rename(namer: ToolNamer): void {
    this.#namer = namer;
  }

  sync(upstream: Upstream): void {
    const mine = [...this.#entries].filter(([, entry]) => entry.upstream === upstream);
    if (upstream.status !== 'ready') {
      for (const [, entry] of mine) entry.handle.disable();
      return;
    }
    const wanted = new Map<string, { listed: string; register: () => RegistryHandle<unknown> }>();
    for (const resource of upstream.resources) {
      wanted.set(`resource\u0000${resource.uri}`, {
        listed: JSON.stringify(resource),
        register: () =>
          this.#server.resource(resource.uri, described(resource), (uri, ctx) =>
            this.#read(upstream, uri, ctx),
          ) as RegistryHandle<unknown>,
      });
    }
    for (const template of upstream.templates) {
      wanted.set(`template\u0000${template.uriTemplate}`, {
        listed: JSON.stringify(template),
        register: () => this.#template(upstream, template),
      });
    }
    for (const prompt of upstream.prompts) {
      const named = this.#namer.name(upstream.prefix, prompt.name);
      if (!named.ok) {
        this.#tell(upstream, `prompt ${prompt.name} is not exposed: ${named.reason}`);
        continue;
      }
      wanted.set(`prompt\u0000${named.name}`, {
        listed: JSON.stringify(prompt),
        register: () => this.#prompt(upstream, named.name, prompt),
      });
    }
    for (const [key, entry] of mine) {
      const want = wanted.get(key);
      if (want && want.listed === entry.listed) {
        entry.handle.enable();
        wanted.delete(key);
        continue;
      }
      entry.handle.remove();
      this.#entries.delete(key);
    }
    for (const [key, want] of wanted) {
      const [kind, name] = key.split('\u0000') as [Entry['kind'], string];
      const owner = this.#entries.get(key);
      if (owner) {
        this.#tell(
          upstream,
          `${kind} ${name} is not exposed: upstream ${owner.upstream.name} has one of that name`,
        );
        continue;
      }
      try {
        const entry: Entry = { upstream, kind, listed: want.listed, handle: want.register() };
        this.#entries.set(key, kind === 'template' ? { ...entry, matcher: new UriTemplate(name) } : entry);
      } catch (error) {
        this.#tell(upstream, `${kind} ${name} is not exposed: ${errorMessage(error)}`);
      }
    }
  }

  /**
   * The upstream whose resource (or template) exposes `uri`, if any — while it is down too (a subscription
   * made meanwhile reaches it once it is back).
   */
  ownerOf(uri: string): Upstream | undefined {
    const exact = this.#entries.get(`resource\u0000${uri}`);
    if (exact) return exact.upstream;
    for (const entry of this.#entries.values()) if (entry.matcher?.match(uri)) return entry.upstream;
    return undefined;
  }

  drop(upstream: Upstream): void {
    for (const [key, entry] of this.#entries) {
      if (entry.upstream !== upstream) continue;
      entry.handle.remove();
      this.#entries.delete(key);
    }
    for (const key of this.#warned) if (key.startsWith(`${upstream.name}\u0000`)) this.#warned.delete(key);
  }

  #template(upstream: Upstream, template: ResourceTemplate): RegistryHandle<unknown> {
    const complete: Record<string, Completer> = {};
    if (upstream.completions) {
      for (const variable of new UriTemplate(template.uriTemplate).variables) {
        complete[variable] = (value, ctx) =>
          relayedComplete(
            upstream,
            `${variable} of ${template.uriTemplate}`,
            { type: 'ref/resource', uri: template.uriTemplate },
            { name: variable, value },
            ctx,
          );
      }
    }
    return this.#server.resourceTemplate(
      template.uriTemplate,
      { ...described(template), complete },
      (uri, _variables, ctx) => this.#read(upstream, uri, ctx),
    ) as RegistryHandle<unknown>;
  }

  #prompt(upstream: Upstream, name: string, prompt: Prompt): RegistryHandle<unknown> {
    const args: PromptArgumentDefinition[] = (prompt.arguments ?? []).map((argument) => {
      if (!upstream.completions) return { ...argument };
      const complete: Completer = (value, ctx) =>
        relayedComplete(
          upstream,
          `${argument.name} of prompt ${prompt.name}`,
          { type: 'ref/prompt', name: prompt.name },
          { name: argument.name, value },
          ctx,
        );
      return { ...argument, complete };
    });
    const { name: _name, arguments: _arguments, ...rest } = prompt;
    return this.#server.prompt(name, withSafeIcons({ ...rest, arguments: args }), (values, ctx) => {
      const client = clientOf(upstream);
      const meta = forwardedMeta(ctx.meta);
      return relayedRequest(
        upstream,
        `get prompt ${prompt.name}`,
        ctx,
        this.#routes,
        (options) =>
          client
            .getPrompt(prompt.name, values, meta ? { ...options, meta } : options)
            .then(withSafePromptIcons),
        {
          parked: this.#parked,
          inFlight: this.#inFlight,
          request: () => `prompts/get\u0000${name}\u0000${digestOfText(canonicalJson(values))}`,
        },
      );
    }) as RegistryHandle<unknown>;
  }

  /**
   * Reads `uri` from `upstream`, its questions relayed to the reader's caller, with what of the caller's
   * `_meta` goes upstream (see forwarded-meta.ts).
   */
  #read(upstream: Upstream, uri: string, ctx: ResourceContext): Promise<ReadResourceResult> {
    const client = clientOf(upstream);
    const meta = forwardedMeta(ctx.meta);
    const read = (options: ExchangeOptions) =>
      client.readResource(uri, meta ? { ...options, meta } : options);
    return relayedRequest(upstream, `read ${uri}`, ctx, this.#routes, read, {
      parked: this.#parked,
      inFlight: this.#inFlight,
      request: () => `resources/read\u0000${uri}`,
    });
  }

  #tell(upstream: Upstream, message: string): void {
    const key = `${upstream.name}\u0000${message}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#warn(upstream, message);
  }
}
