/**
 * The MCP endpoint as a Streamable HTTP client sees it: one URL, the session the server assigned, the
 * negotiated protocol version, and the headers every request carries.
 * @module
 */
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import { LocalErrorCode, asError, errorMessage } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';
import {
  checkHttpClientOptions,
  discardBody,
  requestHeaders,
  sendRequest,
  type HttpClientOptions,
} from './http-client-options.js';
import { httpStatusError } from './http-failure.js';
import { maxMessageSizeOption } from './message-limit.js';
import { nodeFetch } from './node-fetch.js';
import { OAuthError } from './oauth/oauth-error.js';

/** How long ending a session (DELETE) may take. */
const DELETE_TIMEOUT_MS = 5_000;

export class McpEndpoint {
  readonly url: URL;
  /** The `Mcp-Session-Id` the server assigned, once it has. */
  sessionId: string | undefined;
  /** The `MCP-Protocol-Version` sent with every request, once known. */
  protocolVersion: string | undefined;
  /** The largest message read (a JSON answer, one SSE event), in bytes. */
  readonly maxMessageSize: number;
  readonly #options: HttpClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: HttpClientOptions & { protocolVersion?: string | undefined }) {
    checkHttpClientOptions(options);
    this.url = new URL(options.url);
    this.#options = options;
    this.#fetch = options.fetch ?? nodeFetch;
    this.protocolVersion = options.protocolVersion;
    this.maxMessageSize = maxMessageSizeOption(options.maxMessageSize);
  }

  /**
   * Sends one request (cancelled by `cancel`: a signal, or a cancellation, which makes no signal with
   * `nodeFetch`) with the caller's headers, the session id and the protocol version (and
   * `own`, the request's own headers, which win over those two, plus its body), authorized by the
   * `oauth` client if there is one (a DELETE never asks a person to sign in). A network failure becomes a
   * `SEND_FAILED` TransportError, a failed authorization an `OAuthError`; HTTP statuses are the caller's
   * to judge.
   */
  async request(
    method: 'POST' | 'GET' | 'DELETE',
    cancel: AbortSignal | Cancellation,
    own: Record<string, string | undefined> & { body?: string },
  ): Promise<Response> {
    const signal = cancel instanceof AbortSignal ? cancel : undefined;
    const { body, ...names } = own;
    try {
      // `own` wins: a stateless-era request names its own version and carries no session id.
      const headers = await requestHeaders(
        this.#options.headers,
        { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': this.protocolVersion, ...names },
        this.#options.bearer,
      );
      return await sendRequest(this.#options, this.#fetch, {
        resource: this.url,
        url: this.url,
        method,
        headers,
        body,
        signal,
        cancellation: signal ? undefined : (cancel as Cancellation),
        interactive: method !== 'DELETE',
      });
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      throw new TransportError(
        LocalErrorCode.SendFailed,
        `${method} ${this.url.href} failed: ${describeFetchError(error)}`,
        { cause: error },
      );
    }
  }

  /** Remembers the session id a response assigned. */
  learnSession(response: Response): void {
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) this.sessionId = sessionId;
  }

  /**
   * Ends the session with a DELETE, if there is one. Resolves with the failure to report, if any
   * (a 405, "the server does not allow it", and a 404, "already gone", are not failures).
   */
  async endSession(): Promise<Error | undefined> {
    if (this.sessionId === undefined) return undefined;
    try {
      const response = await this.request('DELETE', AbortSignal.timeout(DELETE_TIMEOUT_MS), {});
      await discardBody(response);
      if (response.ok || response.status === 404 || response.status === 405) return undefined;
      return httpStatusError(`DELETE ${this.url.href}`, response, '', LocalErrorCode.ConnectionClosed);
    } catch (error) {
      return asError(error);
    }
  }
}

/** `fetch failed` says little; its cause (`connect ECONNREFUSED …`) says more. */
export function describeFetchError(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? message : `${message} (${errorMessage(cause)})`;
}
