/**
 * Turning an HTTP error response into something the client can use: a JSON-RPC error addressed to
 * one of its requests, or a `TransportError` naming the status and a short excerpt of the body.
 * @module
 */
import { LocalErrorCode, type LocalErrorCodeValue } from '../../protocol/errors.js';
import { classify, type JsonRpcErrorResponse } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';
import { MAX_ERROR_BODY_BYTES, readUpTo } from './bounded-body.js';
import { bearerChallenge, type BearerChallenge } from './www-authenticate.js';

/** The most of an error body quoted in a message. */
const EXCERPT_CHARS = 200;

/** What `TransportError.details` holds for an HTTP status failure. */
export interface HttpFailureDetails {
  status: number;
  /** The start of the response body, whitespace collapsed. */
  body: string;
  /** Set on a 404 for a request that carried a session id: the server ended the session. */
  sessionExpired?: true;
}

/**
 * What `TransportError.details` holds for a 401 or 403: the status and what the `WWW-Authenticate:
 * Bearer` challenge said (`error` e.g. `invalid_token` or `insufficient_scope`, `scope` to ask for,
 * `resourceMetadata` the RFC 9728 metadata URL). The message names the status and the challenge's error,
 * never a token.
 */
export interface HttpAuthFailureDetails extends HttpFailureDetails, BearerChallenge {
  status: 401 | 403;
}

/** Whether `status` refuses the request's credentials (no retry helps without new ones). */
export function isAuthStatus(status: number): status is 401 | 403 {
  return status === 401 || status === 403;
}

/** The details of a TransportError raised for an HTTP 401 or 403 answer, if `error` is one. */
export function authFailure(error: unknown): HttpAuthFailureDetails | undefined {
  const status = failureStatus(error);
  return status !== undefined && isAuthStatus(status)
    ? ((error as TransportError).details as HttpAuthFailureDetails)
    : undefined;
}

/**
 * The body of an error response, as text: its first {@link MAX_ERROR_BODY_BYTES} (enough to quote, and to
 * find a JSON-RPC error in; the rest is not read); empty when it cannot be read.
 */
export async function readErrorBody(response: Response): Promise<string> {
  try {
    return new TextDecoder().decode((await readUpTo(response, MAX_ERROR_BODY_BYTES)).bytes);
  } catch {
    return '';
  }
}

/** The JSON-RPC error response in `body`, when it is one and names a request id. */
export function jsonRpcErrorWithId(body: string): JsonRpcErrorResponse | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const item = classify(value);
  if (item.kind !== 'response' || !('error' in item.message)) return undefined;
  const id = item.message.id;
  return id === undefined || id === null ? undefined : item.message;
}

/** A `TransportError` for an HTTP status: `"<what> failed: HTTP 400 Bad Request: <excerpt>"`. */
export function httpStatusError(
  what: string,
  response: Response,
  body: string,
  code: LocalErrorCodeValue = LocalErrorCode.SendFailed,
  extra: Partial<HttpFailureDetails> = {},
): TransportError {
  const excerpt = excerptOf(body);
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const authStatus = response.status;
  if (isAuthStatus(authStatus)) {
    const challenge = bearerChallenge(response.headers.get('www-authenticate')) ?? {};
    const details: HttpAuthFailureDetails = { ...extra, ...challenge, status: authStatus, body: excerpt };
    return new TransportError(
      authStatus === 401 ? LocalErrorCode.Unauthorized : LocalErrorCode.Forbidden,
      `${what} failed: ${status}${describeChallenge(response.status, challenge)}${excerpt ? `: ${excerpt}` : ''}`,
      {
        details,
      },
    );
  }
  const details: HttpFailureDetails = { status: response.status, body: excerpt, ...extra };
  return new TransportError(code, `${what} failed: ${status}${excerpt ? `: ${excerpt}` : ''}`, { details });
}

/** The HTTP status of a failure raised for an HTTP error answer, if it is one. */
export function failureStatus(error: unknown): number | undefined {
  if (!(error instanceof TransportError)) return undefined;
  const details = error.details as Partial<HttpFailureDetails> | undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}

/** `: invalid_token (The token expired); scope needed: "a b"; see <metadata>` — the body is left out. */
function describeChallenge(status: number, challenge: BearerChallenge): string {
  const parts: string[] = [];
  const error = challenge.error ?? (status === 401 ? 'authentication required' : 'access denied');
  parts.push(challenge.errorDescription ? `${error} (${challenge.errorDescription})` : error);
  if (challenge.scope !== undefined) parts.push(`scope needed: ${JSON.stringify(challenge.scope)}`);
  if (challenge.resourceMetadata !== undefined)
    parts.push(`resource metadata: ${challenge.resourceMetadata}`);
  return `: ${parts.join('; ')}`;
}

function excerptOf(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
