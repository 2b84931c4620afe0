/**
 * The two error families of toolwire.
 *
 * - {@link ProtocolError}: an error that crosses the wire as a JSON-RPC error object, with a numeric code.
 * - {@link ToolwireError}: a local error (timeouts, closed connections, bad definitions) with a string code.
 *   Each layer narrows it (`ClientError`, `ServerError`, `TransportError`, `SchemaError`).
 *
 * @module
 */

/** JSON-RPC and MCP error codes, as they appear on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found (2024-11-05 … 2025-11-25). */
  ResourceNotFound: -32002,
  /** 2026-07-28: an HTTP header does not match the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request lacks a client capability the server needs. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the protocol version is not supported. */
  UnsupportedProtocolVersion: -32022,
  /** 2025-11-25: URL-mode elicitation is required before the request can proceed. */
  UrlElicitationRequired: -32042,
  /**
   * toolwire's own, outside the JSON-RPC reserved range as 2026-07-28 asks of application codes: a
   * `tools/call` over a rate limit or concurrency cap; `data: { retryAfterMs, limit }` (HTTP 429).
   */
  RateLimited: -31429,
  /**
   * toolwire's own: the caller is authenticated but lacks what the request needs (e.g. a tool's scopes);
   * `data: { requiredScopes, missingScopes }` (HTTP 403).
   */
  Forbidden: -31403,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The JSON shape of a JSON-RPC error object. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error that is sent to, or was received from, the peer as a JSON-RPC error. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  /** Rebuilds an error received on the wire. */
  static fromObject(error: ErrorObject): ProtocolError {
    return new ProtocolError(error.code, error.message, error.data);
  }

  toJSON(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** String codes of local errors; one table for every layer. */
export const LocalErrorCode = {
  RequestTimeout: 'REQUEST_TIMEOUT',
  RequestCancelled: 'REQUEST_CANCELLED',
  ConnectionClosed: 'CONNECTION_CLOSED',
  NotConnected: 'NOT_CONNECTED',
  AlreadyConnected: 'ALREADY_CONNECTED',
  UnsupportedProtocolVersion: 'UNSUPPORTED_PROTOCOL_VERSION',
  CapabilityNotSupported: 'CAPABILITY_NOT_SUPPORTED',
  InvalidResult: 'INVALID_RESULT',
  OutputSchemaMismatch: 'OUTPUT_SCHEMA_MISMATCH',
  TooManyPages: 'TOO_MANY_PAGES',
  /** An access token was refused (malformed, expired, for another audience, badly signed). */
  InvalidToken: 'INVALID_TOKEN',
  /** An HTTP server refused the request's credentials (401): `details` hold the Bearer challenge. */
  Unauthorized: 'UNAUTHORIZED',
  /** An HTTP server refused the request for lack of scope or rights (403): `details` hold the challenge. */
  Forbidden: 'FORBIDDEN',
  /**
   * The OAuth client could not get credentials: discovery, registration, the authorization or a token
   * request failed, or a server's answer was refused (wrong issuer, resource or `iss`, no PKCE).
   */
  AuthorizationFailed: 'AUTHORIZATION_FAILED',
  /** 2026-07-28: a server kept answering `input_required` past the client's round limit. */
  TooManyInputRounds: 'TOO_MANY_INPUT_ROUNDS',
  InvalidDefinition: 'INVALID_DEFINITION',
  DuplicateName: 'DUPLICATE_NAME',
  InvalidSchema: 'INVALID_SCHEMA',
  UnsupportedSchemaDialect: 'UNSUPPORTED_SCHEMA_DIALECT',
  InvalidProgress: 'INVALID_PROGRESS',
  MessageTooLarge: 'MESSAGE_TOO_LARGE',
  SpawnFailed: 'SPAWN_FAILED',
  SendFailed: 'SEND_FAILED',
  /** A client's `onError` was not told of some errors of one kind (see `ClientOptions.errorReports`). */
  ReportsDropped: 'REPORTS_DROPPED',
  /** The client's approval policy (or its approver) refused a `tools/call`; nothing was sent. */
  ToolCallDenied: 'TOOL_CALL_DENIED',
  /** A shared store (Redis) could not be reached, or failed, within its time limit: retry later. */
  StoreUnavailable: 'STORE_UNAVAILABLE',
  /** A gateway configuration that does not validate (the details name each path and problem). */
  InvalidConfig: 'INVALID_CONFIG',
  /** A gateway approval id that names no approval (never, or long ago). */
  ApprovalNotFound: 'APPROVAL_NOT_FOUND',
  /** A decision for a gateway approval that was already decided, expired or withdrawn. */
  ApprovalSettled: 'APPROVAL_SETTLED',
  /** A decision for a gateway approval made for other arguments than the call's (their digests differ). */
  ApprovalMismatch: 'APPROVAL_MISMATCH',
  /** A gateway tool name that names no exposed tool. */
  ToolNotFound: 'TOOL_NOT_FOUND',
  /** A gateway call id that names no call the gateway remembers. */
  CallNotFound: 'CALL_NOT_FOUND',
  /** A gateway upstream name that names no upstream. */
  UpstreamNotFound: 'UPSTREAM_NOT_FOUND',
  /** A person's sign-in to a gateway upstream that signs in without one (stdio, no OAuth, client credentials). */
  SignInUnavailable: 'SIGN_IN_UNAVAILABLE',
  /** A sign-in callback whose `state` names no sign-in under way (never started, finished or expired). */
  SignInNotFound: 'SIGN_IN_NOT_FOUND',
  /** A person's sign-in to a gateway upstream failed (discovery, the authorization server's answer, the code). */
  SignInFailed: 'SIGN_IN_FAILED',
} as const;

export type LocalErrorCodeValue = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];

/** A local error: never sent over the wire as such. */
export class ToolwireError extends Error {
  override name = 'ToolwireError';
  readonly code: LocalErrorCodeValue;
  readonly details: unknown;

  constructor(code: LocalErrorCodeValue, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
  }

  toJSON(): { name: string; code: LocalErrorCodeValue; message: string; details?: unknown } {
    return this.details === undefined
      ? { name: this.name, code: this.code, message: this.message }
      : { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** Turns anything thrown into a readable one-line message. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** `error` itself when it is an `Error`, else an `Error` whose message says what was thrown (`errorMessage`). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorMessage(error));
}
