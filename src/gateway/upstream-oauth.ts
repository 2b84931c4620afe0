/**
 * The OAuth side of an HTTP upstream: the OAuth client its transport sends with, and the sign-in a
 * person runs from the console. The transport's requests never ask a person: tokens are sent and
 * refreshed (and the client credentials grant runs on its own), but a request that needs a person to
 * sign in fails with the server's 401, and the upstream then says it needs one. The sign-in is the
 * authorization code flow with PKCE (S256) and a random `state`, redirected back to the gateway's
 * callback; the callback's URL is matched to its flow by that `state`, and the OAuth client checks it
 * (and the `iss`) before it redeems the code with the flow's verifier. One flow per upstream at a time:
 * a second "Sign in" while one is under way gets the same authorization URL.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../index.js';
import {
  OAuthClient,
  type AuthorizeHandler,
  type OAuthClientOptions,
  type OAuthRequest,
  type OAuthStore,
  type StoredTokens,
} from '../transports/http-client/index.js';
import type { UpstreamOAuthConfig } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';

/** How long a person has to come back from the authorization server, in ms. */
const SIGN_IN_TIMEOUT_MS = 10 * 60_000;
/** The redirect URI before any sign-in named one (no flow that needs it runs before). */
const NO_REDIRECT_YET = 'http://127.0.0.1/console/callback';
const PROBE_TIMEOUT_MS = 10_000;

/** An OAuth client whose requests never ask a person (a request that would gets the server's 401). */
class UnattendedOAuthClient extends OAuthClient {
  override send(request: OAuthRequest): Promise<Response> {
    return super.send({ ...request, interactive: false });
  }
}

/** A sign-in under way: where the person goes, and what completes it. */
interface SignInFlow {
  state: string;
  authorizationUrl: URL;
  /** Hands the OAuth client the URL the browser came back to. */
  finish: (callback: URL) => void;
  /** Settles when the tokens are kept (or the flow failed). */
  done: Promise<void>;
}

export class UpstreamOAuth {
  readonly #name: string;
  readonly #url: URL;
  readonly #config: UpstreamOAuthConfig | undefined;
  readonly #store: OAuthStore;
  #client: OAuthClient | undefined;
  #redirectUrl = NO_REDIRECT_YET;
  #flow: SignInFlow | undefined;
  /** Set while `signIn` waits for the OAuth client to name the authorization URL. */
  #handOver: AuthorizeHandler | undefined;
  #starting: Promise<SignInFlow> | undefined;
  /** Without an `oauth` setting: the tokens someone else kept for the URL (`toolwire login URL`). */
  #login: StoredTokens | undefined;

  constructor(name: string, url: string, config: UpstreamOAuthConfig | undefined, store: OAuthStore) {
    this.#name = name;
    this.#url = new URL(url);
    this.#config = config;
    this.#store = store;
  }

  /** Whether the configuration asks for OAuth (else only tokens the store holds are used). */
  get configured(): boolean {
    return this.#config !== undefined;
  }

  /** Whether a person signs in (the authorization code grant), rather than the gateway on its own. */
  get needsPerson(): boolean {
    return this.#config?.grant !== 'client_credentials';
  }

  /**
   * The OAuth client the upstream's transport sends with: when the configuration asks for OAuth, or the
   * store holds tokens for the upstream's URL (`toolwire login URL`); else `undefined`.
   */
  async client(): Promise<OAuthClient | undefined> {
    if (this.#config === undefined) {
      const record = await this.#store.load(`${this.#url.origin}${this.#url.pathname}${this.#url.search}`);
      if (record?.tokens === undefined) return undefined;
      this.#login = record.tokens;
    }
    return (this.#client ??= this.#create());
  }

  /**
   * Reads the store afresh at the next `client()`: tokens may have been kept there meanwhile by someone
   * else (`toolwire login URL` writing the CLI's token file) while the upstream waited for a sign-in.
   */
  reload(): void {
    this.#client = undefined;
  }

  /**
   * Starts a person's sign-in, to come back to `redirectUrl` (the console's callback): resolves with the
   * authorization URL to send the browser to and the flow's `state`. Throws GatewayError `SIGN_IN_FAILED`
   * when the upstream's authorization server cannot be found or refuses.
   */
  async signIn(redirectUrl: string): Promise<{ authorizationUrl: URL; state: string }> {
    if (!this.needsPerson) {
      throw new GatewayError(
        LocalErrorCode.SignInUnavailable,
        `Upstream ${this.#name} signs in with its own credentials`,
      );
    }
    if (this.#flow) return { authorizationUrl: this.#flow.authorizationUrl, state: this.#flow.state };
    this.#starting ??= this.#start(redirectUrl).finally(() => (this.#starting = undefined));
    const flow = await this.#starting;
    return { authorizationUrl: flow.authorizationUrl, state: flow.state };
  }

  async #start(redirectUrl: string): Promise<SignInFlow> {
    if (redirectUrl !== this.#redirectUrl || this.#client === undefined) {
      this.#redirectUrl = redirectUrl;
      this.#client = this.#create();
    }
    const oauth = this.#client;
    const challenge = await unauthorizedAnswer(this.#url);
    let handedOut!: (flow: SignInFlow) => void;
    let failed!: (error: unknown) => void;
    const started = new Promise<SignInFlow>((resolve, reject) => {
      handedOut = resolve;
      failed = reject;
    });
    const done = oauth.authorize(this.#url, challenge === undefined ? {} : { challenge }).finally(() => {
      this.#flow = undefined;
      this.#handOver = undefined;
    });
    // Called once discovery and registration are done (never before `authorize` returned).
    this.#handOver = (authorizationUrl, signal) =>
      new Promise<string>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('nobody signed in in time')), { once: true });
        const finish = (callback: URL) => resolve(callback.href);
        const state = authorizationUrl.searchParams.get('state') ?? '';
        handedOut((this.#flow = { state, authorizationUrl, finish, done }));
      });
    done.then(
      () => failed(new Error('the authorization server signed in without a person')),
      (error: unknown) => failed(error),
    );
    try {
      return await started;
    } catch (error) {
      throw new GatewayError(
        LocalErrorCode.SignInFailed,
        `Signing in to upstream ${this.#name} failed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * The browser came back to the callback with `callback`: when its `state` is this upstream's flow,
   * completes it (the OAuth client checks the answer and redeems the code) and resolves true once the
   * tokens are kept; false when the state is not this upstream's.
   */
  async complete(callback: URL): Promise<boolean> {
    const flow = this.#flow;
    if (flow === undefined || flow.state === '' || callback.searchParams.get('state') !== flow.state)
      return false;
    flow.finish(callback);
    try {
      await flow.done;
    } catch (error) {
      throw new GatewayError(
        LocalErrorCode.SignInFailed,
        `Signing in to upstream ${this.#name} failed: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    return true;
  }

  #create(): OAuthClient {
    const config = this.#config ?? {};
    const common: Partial<OAuthClientOptions> = {
      store: this.#store,
      clientMetadata: { client_name: 'toolwire gateway' },
      ...(this.#config === undefined ? loginClient(this.#login) : {}),
      ...(config.clientId === undefined ? {} : { clientId: config.clientId }),
      ...(config.issuer === undefined ? {} : { clientIssuer: config.issuer }),
      ...(config.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: config.clientMetadataUrl }),
      ...(config.scope === undefined ? {} : { scope: config.scope }),
    };
    const secret = config.clientSecretEnv === undefined ? undefined : process.env[config.clientSecretEnv];
    if (config.clientSecretEnv !== undefined && !secret) {
      throw new GatewayError(
        LocalErrorCode.InvalidConfig,
        `The environment variable ${config.clientSecretEnv} (the client secret of upstream ${this.#name}) is not set`,
      );
    }
    if (secret) common.clientSecret = secret;
    if (config.grant === 'client_credentials') {
      return new UnattendedOAuthClient({ ...common, grant: 'client_credentials' } as OAuthClientOptions);
    }
    return new UnattendedOAuthClient({
      ...common,
      grant: 'authorization_code',
      redirectUrl: this.#redirectUrl,
      authorizationTimeoutMs: SIGN_IN_TIMEOUT_MS,
      authorize: (url, signal) =>
        this.#handOver?.(url, signal) ??
        Promise.reject(new Error(`upstream ${this.#name} needs a person to sign in`)),
    } as OAuthClientOptions);
  }
}

/**
 * The client `toolwire login` used for tokens it kept, so that their refresh presents it (the OAuth client
 * keeps its id with the tokens, never its secret): a pre-registered client id, bound to the issuer, with
 * the secret login read from `TOOLWIRE_CLIENT_SECRET`, or a Client ID Metadata Document. A registration
 * needs nothing: the store keeps it.
 */
function loginClient(tokens: StoredTokens | undefined): Partial<OAuthClientOptions> {
  const client = tokens?.client;
  if (client?.source === 'metadata-document') return { clientMetadataUrl: client.clientId };
  if (client?.source !== 'pre-registered') return {};
  const secret = process.env.TOOLWIRE_CLIENT_SECRET;
  return {
    clientId: client.clientId,
    clientIssuer: tokens?.issuer,
    ...(secret ? { clientSecret: secret } : {}),
  };
}

/**
 * The server's 401 to an initialize without credentials, if it sends one: its challenge says where its
 * resource metadata is (even when no well-known URL has it) and which scopes to ask for.
 */
async function unauthorizedAnswer(url: URL): Promise<Response | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'toolwire-gateway-sign-in',
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'toolwire-gateway', version: '0' },
        },
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status === 401 ? response : undefined;
  } catch {
    return undefined; // unreachable: discovery says more
  }
}
